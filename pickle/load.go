package pickle

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"

	gopickle "github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"

	"github.com/gammae/gammae/query"
)

// Error is a pickle that could not be read: the file (when known), the byte
// offset of the opcode that failed and its name (when known).
type Error struct {
	File   string
	Offset int64 // -1 when the failure is not at one opcode
	Op     string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteString(": ")
	}
	if e.Offset >= 0 {
		fmt.Fprintf(&b, "byte %d: ", e.Offset)
	}
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Load reads one pickle (protocols 0–5) from r and returns it as a Go value
// (see the package doc). Bytes after the STOP opcode are ignored, as Python
// does. Classes other than set, frozenset, collections.defaultdict and
// collections.OrderedDict are refused.
func Load(r io.Reader) (any, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return decode(b)
}

// LoadFile reads the pickle in the file at path; errors name the file.
func LoadFile(path string) (any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := decode(b)
	return v, withFile(err, path)
}

// withFile names the file in err.
func withFile(err error, path string) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		pe.File = path
		return err
	}
	return &Error{File: path, Offset: -1, Err: err}
}

func decode(b []byte) (any, error) {
	stream, frames, err := unframe(b)
	if err != nil {
		return nil, err
	}
	raw, err := unpickle(stream, frames)
	if err != nil {
		return nil, err
	}
	// Every container of a tree without shared parts costs at least one
	// opcode byte, so a conversion that exceeds that budget met shared
	// containers: redo it converting each of them once.
	c := converter{budget: len(stream)}
	v, err := c.value(raw, 0)
	if errors.Is(err, errShared) {
		c = converter{budget: -1, seen: make(map[any]any)}
		v, err = c.value(raw, 0)
	}
	if err != nil {
		return nil, &Error{Offset: -1, Err: err}
	}
	return v, nil
}

// unpickle runs gopickle on an unframed, length-checked opcode stream.
func unpickle(stream []byte, frames []int) (v any, err error) {
	rd := bytes.NewReader(stream)
	fail := func(e error) error {
		start, name := opAt(stream, int(rd.Size()-int64(rd.Len())))
		return &Error{Offset: origOffset(start, frames), Op: name, Err: e}
	}
	defer func() {
		// gopickle panics on some malformed input (e.g. an unhashable set
		// element, a zero-length LONG1): report it as an error at the opcode.
		if p := recover(); p != nil {
			v, err = nil, fail(fmt.Errorf("malformed pickle: %v", p))
		}
	}()
	u := gopickle.NewUnpickler(rd)
	u.FindClass = findClass
	v, err = u.Load()
	if err != nil {
		return nil, fail(err)
	}
	return v, nil
}

// findClass resolves the globals the benchmark's pickles use and refuses
// the rest, so that no unknown object reaches the converter.
func findClass(module, name string) (any, error) {
	switch module {
	case "collections":
		if name == "defaultdict" {
			return defaultDictClass{}, nil
		}
	case "builtins", "__builtin__":
		switch name {
		case "set", "frozenset", "list", "dict", "int", "str", "tuple", "float", "bool":
			return &builtin{name}, nil
		}
	}
	return nil, fmt.Errorf("class %s.%s is not supported", module, name)
}

// builtin is a Python builtin type. Calling set or frozenset builds a set
// (protocols 2–3 pickle sets as set([items])); the others only serve as
// defaultdict factories.
type builtin struct{ name string }

func (c *builtin) Call(args ...any) (any, error) {
	if c.name != "set" && c.name != "frozenset" {
		return nil, fmt.Errorf("calling %s is not supported", c.name)
	}
	s := types.NewSet()
	switch len(args) {
	case 0:
	case 1:
		var items []any
		switch it := args[0].(type) {
		case *types.List:
			items = *it
		case *types.Tuple:
			items = *it
		default:
			return nil, fmt.Errorf("%s(): expected a list or tuple, got %s", c.name, typeName(args[0]))
		}
		for _, x := range items {
			s.Add(x)
		}
	default:
		return nil, fmt.Errorf("%s(): expected at most 1 argument, got %d", c.name, len(args))
	}
	return s, nil
}

type defaultDictClass struct{}

func (defaultDictClass) Call(args ...any) (any, error) {
	d := &defaultDict{factory: "None"}
	switch len(args) {
	case 0:
	case 1:
		switch f := args[0].(type) {
		case nil:
		case *builtin:
			d.factory = f.name
		default:
			return nil, fmt.Errorf("defaultdict(): unsupported factory %s", typeName(args[0]))
		}
	default:
		return nil, fmt.Errorf("defaultdict(): expected at most 1 argument, got %d", len(args))
	}
	return d, nil
}

// defaultDict is a collections.defaultdict while unpickling.
type defaultDict struct {
	factory string
	items   types.Dict
}

func (d *defaultDict) Set(key, value any) { d.items.Set(key, value) }

// maxDepth bounds nesting, which also stops cyclic lists and dicts.
const maxDepth = 1000

// converter turns gopickle values into the package's value model.
type converter struct {
	// budget is the number of containers left to convert before assuming
	// sharing (-1: no limit).
	budget int
	// seen holds converted containers by pointer, so that a container
	// referenced many times (via the memo) is converted once: without it a
	// small pickle could describe an exponentially large tree.
	seen map[any]any
}

var errShared = errors.New("shared containers")

func (c *converter) value(x any, depth int) (any, error) {
	switch v := x.(type) {
	case nil, bool, int, float64, string:
		return v, nil
	case *big.Int:
		return nil, fmt.Errorf("integer %s does not fit in 64 bits", v)
	}
	if !isContainer(x) {
		// Checked before the memo lookup below: a value of another type
		// (bytes, say) may not be hashable, and must never become a map key.
		return nil, fmt.Errorf("unsupported Python value of type %s", typeName(x))
	}
	if depth >= maxDepth {
		return nil, fmt.Errorf("values nested more than %d levels deep (or cyclic)", maxDepth)
	}
	if c.seen != nil {
		if got, ok := c.seen[x]; ok {
			return got, nil
		}
	} else if c.budget--; c.budget < 0 {
		return nil, errShared
	}
	var out any
	var err error
	switch v := x.(type) {
	case *types.Tuple:
		out, err = c.tuple(*v, depth)
	case *types.List:
		l := make([]any, len(*v))
		for i, e := range *v {
			if l[i], err = c.value(e, depth+1); err != nil {
				break
			}
		}
		out = l
	case *types.Set:
		out, err = c.set(len(*v), func(yield func(any) bool) {
			for e := range *v {
				if !yield(e) {
					return
				}
			}
		}, depth)
	case *types.FrozenSet:
		out, err = c.set(len(*v), func(yield func(any) bool) {
			for e := range *v {
				if !yield(e) {
					return
				}
			}
		}, depth)
	case *types.Dict:
		out, err = c.dict(*v, "", depth)
	case *defaultDict:
		out, err = c.dict(v.items, v.factory, depth)
	case *types.OrderedDict:
		items := make(types.Dict, 0, v.Len())
		for e := v.List.Front(); e != nil; e = e.Next() {
			en := e.Value.(*types.OrderedDictEntry)
			items = append(items, types.DictEntry{Key: en.Key, Value: en.Value})
		}
		out, err = c.dict(items, "", depth)
	default:
		return nil, fmt.Errorf("unsupported Python value of type %s", typeName(x))
	}
	if err != nil {
		return nil, err
	}
	if c.seen != nil {
		c.seen[x] = out
	}
	return out, nil
}

func (c *converter) tuple(v []any, depth int) (query.Tuple, error) {
	t := make(query.Tuple, len(v))
	for i, e := range v {
		var err error
		if t[i], err = c.value(e, depth+1); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (c *converter) set(n int, all func(func(any) bool), depth int) (Set, error) {
	s := make(Set, 0, n)
	var err error
	all(func(e any) bool {
		var x any
		if x, err = c.value(e, depth+1); err != nil {
			return false
		}
		if err = checkHashable(x, 0); err != nil { // Python refuses these too
			err = fmt.Errorf("set element: %w", err)
			return false
		}
		s = append(s, x)
		return true
	})
	if err != nil {
		return nil, err
	}
	return sortSet(s), nil
}

func (c *converter) dict(items types.Dict, factory string, depth int) (*Dict, error) {
	d := &Dict{Items: make([]Item, len(items)), Factory: factory}
	for i, it := range items {
		k, err := c.value(it.Key, depth+1)
		if err != nil {
			return nil, err
		}
		if err := checkHashable(k, 0); err != nil {
			return nil, fmt.Errorf("dict key: %w", err)
		}
		v, err := c.value(it.Value, depth+1)
		if err != nil {
			return nil, fmt.Errorf("value of key %s: %w", Key(k), err)
		}
		d.Items[i] = Item{k, v}
	}
	return d, nil
}

// isContainer reports whether x is one of the container pointers value
// converts; only those go into its memo, keyed by pointer.
func isContainer(x any) bool {
	switch x.(type) {
	case *types.Tuple, *types.List, *types.Set, *types.FrozenSet, *types.Dict, *defaultDict, *types.OrderedDict:
		return true
	}
	return false
}

// typeName names a gopickle value by its Python type where it can.
func typeName(x any) string {
	switch v := x.(type) {
	case nil:
		return "None"
	case []byte:
		return "bytes"
	case *types.ByteArray:
		return "bytearray"
	case *builtin:
		return "class " + v.name
	case defaultDictClass:
		return "class collections.defaultdict"
	case *types.GenericObject:
		return v.Class.Module + "." + v.Class.Name
	}
	return fmt.Sprintf("%T", x)
}
