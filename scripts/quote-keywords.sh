#!/usr/bin/env bash
# quote-keywords.sh DSN [DSN...] - regenerate internal/quote/keywords.go from the
# key words of running servers (pg_get_keywords()): every word that is not
# UNRESERVED_KEYWORD in one of them is quoted, as quote_ident quotes it.
# Give one DSN per supported major (the oldest and the newest at least).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: $0 DSN [DSN...]" >&2; exit 2; }
vers=()
words=$(for dsn in "$@"; do
	psql -X -At -d "$dsn" -c "SELECT word FROM pg_get_keywords() WHERE catcode <> 'U'"
done | sort -u)
for dsn in "$@"; do vers+=("$(psql -X -At -d "$dsn" -c 'SHOW server_version' | cut -d' ' -f1)"); done
{
	echo "// Code generated from pg_get_keywords() of PostgreSQL ${vers[*]}; DO NOT EDIT."
	echo '// Regenerate with scripts/quote-keywords.sh against the newest server.'
	echo
	echo 'package quote'
	echo
	echo '// keywords are the key words of any supported PostgreSQL (15 and later) that'
	echo '// are not UNRESERVED_KEYWORD in one of them: quote_ident quotes them.'
	echo 'var keywords = map[string]bool{'
	printf '\t"%s": true,\n' $words
	echo '}'
} > internal/quote/keywords.go
gofmt -w internal/quote/keywords.go
