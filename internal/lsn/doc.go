// Package lsn is a WAL position, PostgreSQL's pg_lsn: a byte offset in the
// write-ahead log, printed as two hexadecimal halves ("16/B374D848").
//
// Positions are read from the servers as bytes since '0/0' (pg_lsn - '0/0'),
// so the difference of two positions is a byte count; [LSN] prints and
// marshals as PostgreSQL prints it, and reads back both that form and the
// plain numbers recordings made before held.
package lsn
