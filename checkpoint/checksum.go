package checkpoint

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gammae/gammae/safetensors"
)

// metaChecksum is the metadata key of a model file's SHA-256 over its
// tensors (names, dtypes, shapes and bytes, in name order). Files written
// before it existed have none and load with the finiteness check alone.
const metaChecksum = "gammae.sha256"

// checksum hashes tensors independently of their order in the file.
func checksum(ts []safetensors.Tensor) string {
	sorted := slices.Clone(ts)
	slices.SortFunc(sorted, func(a, b safetensors.Tensor) int { return strings.Compare(a.Name, b.Name) })
	h := sha256.New()
	var n [8]byte
	for _, t := range sorted {
		h.Write([]byte(t.Name))
		h.Write([]byte{0})
		h.Write([]byte(t.DType))
		h.Write([]byte{0})
		for _, d := range t.Shape {
			binary.LittleEndian.PutUint64(n[:], uint64(d))
			h.Write(n[:])
		}
		h.Write(t.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// withChecksum returns meta with the tensors' checksum added.
func withChecksum(meta map[string]string, ts []safetensors.Tensor) map[string]string {
	meta[metaChecksum] = checksum(ts)
	return meta
}

// verify refuses a model file whose tensors do not match its checksum or
// hold a value that is not a finite number: a corrupt file must never be
// scored.
func verify(path string, f *safetensors.File) error {
	ts := f.Tensors()
	if want, ok := f.Metadata[metaChecksum]; ok && checksum(ts) != want {
		return fmt.Errorf("%s: the tensors do not match the file's checksum: the file is corrupt (restore it, or retrain)", path)
	}
	for _, t := range ts {
		if i, v := firstNonFinite(t); i >= 0 {
			return fmt.Errorf("%s: tensor %s holds %v at index %d: the file is corrupt or its run diverged", path, t.Name, v, i)
		}
	}
	return nil
}

// firstNonFinite returns the index and value of t's first NaN or infinity,
// or -1.
func firstNonFinite(t safetensors.Tensor) (int, float64) {
	switch t.DType {
	case safetensors.F32:
		for i := 0; i+4 <= len(t.Data); i += 4 {
			v := float64(math.Float32frombits(binary.LittleEndian.Uint32(t.Data[i:])))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return i / 4, v
			}
		}
	case safetensors.F64:
		for i := 0; i+8 <= len(t.Data); i += 8 {
			v := math.Float64frombits(binary.LittleEndian.Uint64(t.Data[i:]))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return i / 8, v
			}
		}
	}
	return -1, 0
}
