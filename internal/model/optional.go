package model

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Optional is a figure that may not have been measured: Get says whether
// it was. Its zero value is not measured. It is written as its number, or
// null when not measured; reading takes null (and the -1 of a report before
// schema 5, or any negative number) as not measured.
type Optional[T float64 | int64] struct {
	v  T
	ok bool
}

// Known is the measured figure v.
func Known[T float64 | int64](v T) Optional[T] { return Optional[T]{v: v, ok: true} }

// Get is the figure and whether it was measured (the zero value when not).
func (o Optional[T]) Get() (T, bool) { return o.v, o.ok }

// Known reports whether the figure was measured.
func (o Optional[T]) Known() bool { return o.ok }

// Or is the figure, or d when it was not measured.
func (o Optional[T]) Or(d T) T {
	if !o.ok {
		return d
	}
	return o.v
}

// MarshalJSON writes the figure, or null when it was not measured.
func (o Optional[T]) MarshalJSON() ([]byte, error) {
	if !o.ok {
		return []byte("null"), nil
	}
	return json.Marshal(o.v)
}

// UnmarshalJSON reads a number as measured, and null or a negative number
// (how reports before schema 5 wrote it) as not measured.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	*o = Optional[T]{}
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil
	}
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("figure: %w", err)
	}
	if v >= 0 {
		*o = Known(v)
	}
	return nil
}
