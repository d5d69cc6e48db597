// Package mapfile reads large files by mapping them. The first touch of
// fresh memory is dear on some hosts (a page fault each 4 KiB, measured at
// several µs in a virtual machine), and a file read into the heap is
// touched twice: once by the read, once by whoever decodes it. A mapping
// of a file in the page cache is touched once, a few pages per fault.
package mapfile
