package safetensors

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Tensor is one named array: row-major, little-endian elements in Data.
// Tensors returned by Parse share Data with the parsed buffer.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte
}

// NumElements is the product of the shape (1 for a scalar), or -1 when a
// dimension is negative or the product overflows.
func (t Tensor) NumElements() int {
	return numElements(t.Shape)
}

func numElements(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		if d != 0 && n > math.MaxInt/d {
			return -1
		}
		n *= d
	}
	return n
}

// check reports whether t's dtype, shape and data length agree.
func (t Tensor) check() error {
	size := t.DType.Size()
	if size == 0 {
		return fmt.Errorf("tensor %q: unsupported dtype %q", t.Name, t.DType)
	}
	n := t.NumElements()
	if n < 0 || n > math.MaxInt/size {
		return fmt.Errorf("tensor %q: invalid shape %v", t.Name, t.Shape)
	}
	if len(t.Data) != n*size {
		return fmt.Errorf("tensor %q: shape %v of %s needs %d bytes, have %d", t.Name, t.Shape, t.DType, n*size, len(t.Data))
	}
	return nil
}

// NewFloat32 encodes v as an F32 tensor. A shape that does not match len(v)
// is reported by Write.
func NewFloat32(name string, shape []int, v []float32) Tensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return Tensor{Name: name, DType: F32, Shape: clone(shape), Data: b}
}

// NewFloat64 encodes v as an F64 tensor.
func NewFloat64(name string, shape []int, v []float64) Tensor {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(x))
	}
	return Tensor{Name: name, DType: F64, Shape: clone(shape), Data: b}
}

// NewInt32 encodes v as an I32 tensor.
func NewInt32(name string, shape []int, v []int32) Tensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return Tensor{Name: name, DType: I32, Shape: clone(shape), Data: b}
}

// NewInt64 encodes v as an I64 tensor.
func NewInt64(name string, shape []int, v []int64) Tensor {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return Tensor{Name: name, DType: I64, Shape: clone(shape), Data: b}
}

// Float32s decodes an F32 tensor into a new slice.
func (t Tensor) Float32s() ([]float32, error) {
	if err := t.want(F32); err != nil {
		return nil, err
	}
	v := make([]float32, len(t.Data)/4)
	return v, DecodeFloats(t, v)
}

// Float64s decodes an F64 tensor into a new slice.
func (t Tensor) Float64s() ([]float64, error) {
	if err := t.want(F64); err != nil {
		return nil, err
	}
	v := make([]float64, len(t.Data)/8)
	return v, DecodeFloats(t, v)
}

// DecodeFloats decodes an F32 or F64 tensor into dst, converting to dst's
// type; dst holds exactly the tensor's elements. Loaders decode into the
// memory the values will live in, without a slice between.
func DecodeFloats[T ~float32 | ~float64](t Tensor, dst []T) error {
	if t.DType != F32 && t.DType != F64 {
		return fmt.Errorf("safetensors: tensor %q is %s, want F32 or F64", t.Name, t.DType)
	}
	if err := t.check(); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	if n := t.NumElements(); n != len(dst) {
		return fmt.Errorf("safetensors: tensor %q holds %d values, want %d", t.Name, n, len(dst))
	}
	if t.DType == F32 {
		for i := range dst {
			dst[i] = T(math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:])))
		}
		return nil
	}
	for i := range dst {
		dst[i] = T(math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:])))
	}
	return nil
}

// Int32s decodes an I32 tensor into a new slice.
func (t Tensor) Int32s() ([]int32, error) {
	if err := t.want(I32); err != nil {
		return nil, err
	}
	v := make([]int32, len(t.Data)/4)
	for i := range v {
		v[i] = int32(binary.LittleEndian.Uint32(t.Data[4*i:]))
	}
	return v, nil
}

// Int64s decodes an I64 tensor into a new slice.
func (t Tensor) Int64s() ([]int64, error) {
	if err := t.want(I64); err != nil {
		return nil, err
	}
	v := make([]int64, len(t.Data)/8)
	for i := range v {
		v[i] = int64(binary.LittleEndian.Uint64(t.Data[8*i:]))
	}
	return v, nil
}

func (t Tensor) want(d DType) error {
	if t.DType != d {
		return fmt.Errorf("safetensors: tensor %q is %s, not %s", t.Name, t.DType, d)
	}
	if err := t.check(); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	return nil
}

func clone(s []int) []int {
	if s == nil {
		return []int{}
	}
	return append([]int(nil), s...)
}
