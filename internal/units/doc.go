// Package units parses and prints the quantities lagscope talks about: byte
// rates such as "8MB/s" or "100Mbit/s", and byte counts for reports.
//
// SI prefixes are powers of 1000 (kB, MB, GB, TB), IEC prefixes powers of 1024
// (KiB, MiB, GiB, TiB). A lower-case "b" or the word "bit" means bits, an
// upper-case "B" or the word "byte" means bytes; the prefix itself is case
// insensitive, so "mb/s" is megabits and "MB/s" megabytes.
//
//	r, err := units.ParseByteRate("100Mbit/s") // 12_500_000 bytes per second
//	fmt.Println(r)                             // "12.5MB/s"
package units
