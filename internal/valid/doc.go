// Package valid checks the values lagscope reads back from its own files
// (saved samples, snapshots, reports) before anything is decided or printed
// from them: such a file may have been edited, or made by someone else to
// steer the advice an operator pastes. Each check returns a one-line error
// naming the field ("ticks[3].slots[0].name") and what would be valid.
//
// The rules are what a real server can produce, no stricter:
//
//   - a replication slot's name is PostgreSQL's rule
//     (ReplicationSlotValidateName): 1 to 63 of a-z, 0-9 and _;
//   - any other object name (table, column, index, trigger, publication,
//     subscription, schema, database) is 1 to 63 bytes (NAMEDATALEN - 1)
//     without a NUL byte. It need not be valid UTF-8: a SQL_ASCII database
//     stores names in any bytes, and such a file is kept (every output
//     escapes what it cannot show);
//   - an enumerated field (a verdict, a stage, a severity, a status, a check
//     ID, a side) is one of the values this lagscope writes.
package valid
