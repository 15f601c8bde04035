// Package sqltext reads the text of statements other sessions run (a lock
// blocker's query, an open transaction's last statement), as lagscope
// captures them from pg_stat_activity, before anything of them is stored:
//
//   - Normalize replaces every constant (string, bit-string and dollar-quoted
//     constants, numbers) with a $n placeholder, as pg_stat_statements shows
//     a statement: `UPDATE patients SET ssn = '123-45-6789' WHERE id = 7`
//     becomes `UPDATE patients SET ssn = $1 WHERE id = $2`. It is the
//     default for every tick, report and recording.
//   - Redact hides what stands as a password: a PASSWORD constant in any
//     form (PASSWORD'x', PASSWORD /* c */ E'x', U&'x', $$x$$) and the
//     password or sslpassword of a connection string held in a constant
//     (CREATE SUBSCRIPTION ... CONNECTION '...'). It runs always, whether or
//     not constants are kept.
//
// Both read the text with PostgreSQL's lexical rules (standard_conforming_strings
// on, its default since 9.1): comments and quoted identifiers are kept as they
// are, and a constant the 200-character cut left unterminated runs to the end
// of the text. They never fail: any input yields text.
package sqltext
