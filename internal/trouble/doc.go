// Package trouble forecasts when a replication slot's retained WAL becomes
// an outage: the slot invalidated past max_slot_wal_keep_size. It is pure:
// it extrapolates one window's positions, and says which rates it used and
// over how long, or that the retained WAL is not growing.
//
// The model, its parameters and how its forecasts met the lab's slots are
// in docs/trouble.md.
package trouble
