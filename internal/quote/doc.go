// Package quote is the one quoting layer for everything lagscope prints for a
// person to run: identifiers by PostgreSQL's quote_ident rule (its key words
// from pg_get_keywords() of every supported version), string constants, shell
// words, and the statements built from them. Names come from other people:
// whatever they hold, the printed text names exactly that object, holds no
// rune a terminal acts on, and is one statement on one line.
//
// A statement is built from a template and values, as PostgreSQL's format()
// builds one:
//
//	quote.SQL("ALTER SUBSCRIPTION %I ENABLE;", sub.Name).OnServer("subscriber")
//	quote.Command("pg_dump", "--schema-only", "--table="+quote.DumpPattern(schema, table))
//
// Nothing here is for queries lagscope sends itself: those take names as bind
// parameters.
package quote
