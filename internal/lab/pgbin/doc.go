// Package pgbin finds the PostgreSQL server binaries (postgres, initdb, pg_ctl)
// the lab runs, and the client tools (psql, pgbench) that go with them.
//
// [Find] looks, in order, at the --pg-bin directory, $LAGSCOPE_PG_BIN, the
// directory `pg_config --bindir` names, and Debian's /usr/lib/postgresql/*/bin,
// newest major first. When a particular major is asked for (--pg-version) and
// none of those has it, Find uses a build already in lagscope's cache or runs
// scripts/get-postgres.sh to download one, and uses the directory it prints.
//
//	dir, err := pgbin.Find(pgbin.FindOptions{PGVersion: 16})
//	// dir.Bin = "/root/.cache/lagscope/pg/16.14.0-beta.17/bin", dir.Version = 16.14
//	pgbench, err := dir.Tool("pgbench") // the npm builds have none: Debian's is used
//
// A Dir's version is a [pgversion.Version], read from `postgres --version`.
package pgbin
