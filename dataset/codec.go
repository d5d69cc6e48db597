package dataset

// The binary dataset file (.gqd) holds a whole Dataset as raw little-endian
// arrays so that loading is one read (or, LoadMapped, one mapping of the
// file), one checksum and a few linear passes; on little-endian hosts the
// arrays of 4-byte values are used in place.
//
// Layout (all integers little-endian):
//
//	header, 24 bytes:
//	  [0:8)   magic "GAMMAEQD"
//	  [8:12)  uint32 format version (2; 1 is read too)
//	  [12:16) uint32 CRC-32 (IEEE) of the payload
//	  [16:24) uint64 payload length in bytes
//	payload:
//	  strings  entity names, entity labels, relation names, relation labels
//	  uint64   N (entities), uint64 R (relations incl. inverses)
//	  graph    the test graph's Out index, then its In index; each:
//	             uint64 E, uint32 Off[N+1], int32 Rel[E], int32 Nbr[E],
//	             uint8 Level[E] (0 train edge, 1 added by valid, 2 by test), pad
//	  split    train, valid, test; each: uint32 group count, then per group:
//	             string shape, uint32 slots, uint64 n (queries),
//	             int32 IDs[n*slots], uint32 AnsLen[n], int32 Ans[sum AnsLen],
//	             uint32 EasyLen[n], int32 Easy[sum EasyLen]
//	where strings = uint32 count, uint32 len[count], then the bytes of all
//	strings back to back, pad; a string is uint32 len, its bytes, pad; and
//	pad is zero bytes up to a multiple of 4 of the payload's length
//	(version 2; version 1 has none), so every array of 4-byte values
//	starts 4-aligned.
//
// The train and valid graphs are the test graph's edges of level <= 0 and
// <= 1: the nesting train ⊆ valid ⊆ test makes one index with a level per
// edge enough, and filtering it keeps rows sorted, so no graph is rebuilt.
// Answer offsets are stored as lengths (uint32) to halve their size.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/gammae/gammae/internal/atomicfile"
	"hash/crc32"
	"io"
	"os"
)

const (
	magic      = "GAMMAEQD"
	version    = 2 // 1 had no padding; both are read
	headerSize = 24
)

// Save writes d to path in the binary format, atomically: it writes a
// temporary file in the same directory and renames it over path.
func Save(path string, d *Dataset) error {
	if d == nil || d.KG == nil {
		return fmt.Errorf("dataset %s: nothing to save (no knowledge graph)", path)
	}
	return atomicfile.Write(path, func(f *os.File) error {
		if _, err := f.Write(make([]byte, headerSize)); err != nil {
			return err
		}
		crc := crc32.NewIEEE()
		bw := bufio.NewWriterSize(io.MultiWriter(f, crc), 1<<20)
		w := &writer{w: bw}
		if err := encode(w, d); err != nil {
			return fmt.Errorf("dataset %s: %w", path, err)
		}
		if w.err == nil {
			w.err = bw.Flush()
		}
		if w.err != nil {
			return w.err
		}
		var h [headerSize]byte
		copy(h[:], magic)
		binary.LittleEndian.PutUint32(h[8:], version)
		binary.LittleEndian.PutUint32(h[12:], crc.Sum32())
		binary.LittleEndian.PutUint64(h[16:], uint64(w.n))
		_, err := f.WriteAt(h[:], 0)
		return err
	})
}

// Load reads a dataset written by Save. Corrupt or truncated files give an
// error naming the file, the byte offset and what was being read.
func Load(path string) (*Dataset, error) {
	return load(path, false)
}

// LoadMapped is Load with a large file mapped (copy-on-write) instead of
// read, where the OS can: its arrays are then the page cache's pages, and
// FB15k-237's 600 MB dataset loads in under a second where reading it takes
// about 3 s on the same host. The file must not be rewritten in place while the dataset is in
// use (gammae replaces files by rename, which is safe): truncating it
// would crash the process. For commands that load, work briefly and exit.
func LoadMapped(path string) (*Dataset, error) {
	return load(path, true)
}

func load(path string, mapped bool) (*Dataset, error) {
	b, release, err := readFile(path, mapped)
	if err != nil {
		return nil, err
	}
	d, err := decode(path, b)
	if err != nil {
		release()
	}
	return d, err
}

// errTruncated marks a read past the end of the payload.
var errTruncated = errors.New("truncated")

func decode(name string, b []byte) (*Dataset, error) {
	if len(b) < headerSize {
		if len(b) >= len(magic) && string(b[:len(magic)]) != magic {
			return nil, fmt.Errorf("dataset %s: not a gammae dataset file (bad magic %q)", name, b[:len(magic)])
		}
		return nil, fmt.Errorf("dataset %s: truncated at byte %d reading the %d-byte header", name, len(b), headerSize)
	}
	if string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("dataset %s: not a gammae dataset file (bad magic %q)", name, b[:len(magic)])
	}
	v := binary.LittleEndian.Uint32(b[8:])
	if v != 1 && v != version {
		return nil, fmt.Errorf("dataset %s: format version %d, this program reads versions 1 and %d", name, v, version)
	}
	sum := binary.LittleEndian.Uint32(b[12:])
	size := binary.LittleEndian.Uint64(b[16:])
	payload := b[headerSize:]
	if size > uint64(len(payload)) {
		return nil, fmt.Errorf("dataset %s: truncated at byte %d: header says the payload has %d bytes, the file holds %d", name, len(b), size, len(payload))
	}
	if size < uint64(len(payload)) {
		return nil, fmt.Errorf("dataset %s: %d unexpected bytes after the payload at byte %d", name, uint64(len(payload))-size, headerSize+size)
	}
	if got := crc32.ChecksumIEEE(payload); got != sum {
		return nil, fmt.Errorf("dataset %s: checksum mismatch (file says %08x, payload has %08x): the file is corrupt", name, sum, got)
	}
	r := &reader{b: payload, base: headerSize, aligned: v >= 2}
	d, err := decodePayload(r)
	if err != nil {
		return nil, fmt.Errorf("dataset %s: %w", name, err)
	}
	if r.off != len(r.b) {
		return nil, fmt.Errorf("dataset %s: %d unexpected bytes at byte %d after the last split", name, len(r.b)-r.off, r.base+r.off)
	}
	return d, nil
}
