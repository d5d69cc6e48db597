// Command gammae answers first-order logical queries over incomplete
// knowledge graphs with Gamma embeddings (GammaE, EMNLP 2022).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}))
}

// env is what a command may touch of the outside world, so that tests can
// run commands in process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand. Setup defines the flags on fs and returns the
// function that runs the command with the remaining arguments.
type command struct {
	Name     string // e.g. "data generate"
	Args     string // synopsis of positional arguments
	Summary  string
	Examples string
	Setup    func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error
}

var commands = map[string]*command{}

// register adds a subcommand; each command's file calls it from init.
func register(c *command) { commands[c.Name] = c }

// errUsage marks an error already explained by the command's usage text.
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, e *env) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(e.stdout)
		return 0
	}
	// Commands have one or two words: "train", "data generate".
	var c *command
	n := 0
	if len(args) >= 2 {
		c, n = commands[args[0]+" "+args[1]], 2
	}
	if c == nil {
		c, n = commands[args[0]], 1
	}
	if c == nil {
		group := groupCommands(args[0])
		if len(group) > 0 {
			// "gammae data", "gammae data --help": the group's commands.
			w, code := e.stderr, 2
			if len(args) == 1 || wantsHelp(args[1:]) {
				w, code = e.stdout, 0
			} else {
				fmt.Fprintf(w, "gammae %s: unknown command %q\n", args[0], args[1])
			}
			fmt.Fprintf(w, "Commands of gammae %s:\n", args[0])
			for _, name := range group {
				fmt.Fprintf(w, "  %-16s %s\n", name, commands[name].Summary)
			}
			fmt.Fprintf(w, "\nRun 'gammae %s --help' for a command's flags and examples.\n", group[0])
			return code
		} else {
			fmt.Fprintf(e.stderr, "gammae: unknown command %q (run 'gammae help')\n", args[0])
		}
		return 2
	}
	fs := flag.NewFlagSet("gammae "+c.Name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	runFn := c.Setup(fs)
	fs.Usage = func() { commandUsage(e.stderr, c, fs) }
	if wantsHelp(args[n:]) {
		commandUsage(e.stdout, c, fs)
		return 0
	}
	if err := fs.Parse(args[n:]); err != nil {
		return 2
	}
	if err := runFn(ctx, e, fs.Args()); err != nil {
		if errors.Is(err, errUsage) {
			// Say what was wrong before the usage text.
			if extra := fs.Args(); len(extra) > 0 {
				fmt.Fprintf(e.stderr, "gammae %s: unexpected argument %q\n\n", c.Name, extra[0])
			} else {
				fmt.Fprintf(e.stderr, "gammae %s: missing a required flag or argument\n\n", c.Name)
			}
			commandUsage(e.stderr, c, fs)
			return 2
		}
		fmt.Fprintf(e.stderr, "gammae %s: %v\n", c.Name, err)
		return 1
	}
	return 0
}

// wantsHelp reports whether a help flag comes before any "--".
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

func groupCommands(word string) []string {
	var out []string
	for name := range commands {
		if strings.HasPrefix(name, word+" ") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "gammae answers first-order logical queries over knowledge graphs with Gamma embeddings.")
	fmt.Fprintln(w, "\nUsage: gammae <command> [flags] [args]\n\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-16s %s\n", n, commands[n].Summary)
	}
	fmt.Fprintln(w, "\nRun 'gammae <command> --help' for a command's flags and examples.")
}

func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: gammae %s [flags] %s\n\n%s\n", c.Name, c.Args, c.Summary)
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	if c.Examples != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(c.Examples, "\n"))
	}
}

// selfCommand is how the user runs gammae again: "go run ./cmd/gammae"
// when this binary is go run's temporary build, else "gammae".
func selfCommand() string {
	if exe, err := os.Executable(); err == nil && strings.Contains(exe, "go-build") {
		return "go run ./cmd/gammae"
	}
	return "gammae"
}

// wrapText breaks s into lines of at most width runes, each after the
// first starting with indent.
func wrapText(s string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if line+1+len([]rune(w)) > width {
				b.WriteString("\n" + indent)
				line = 0
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(w)
		line += len([]rune(w))
	}
	return b.String()
}
