package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/lagscope/lagscope/internal/quote"
)

// The per-row cost scenarios put one costly object on the subscriber's hot
// only (the publisher's copy has none), before the subscriptions are
// enabled: each replicated UPDATE then pays for it in the apply worker.
// Each is dropped when lifted, so the backlog drains at the apply worker's
// own speed.
const (
	// CheckName is the CHECK constraint the check-constraint scenario adds;
	// it calls CheckFunction.
	CheckName     = "lab_costly_check"
	CheckFunction = "lab_valid"
	// ExpressionIndexName is the expression-index scenario's GIN index
	// over a text expression of the row.
	ExpressionIndexName = "lab_words"
	// GeneratedColumn is the generated-column scenario's STORED column; its
	// expression calls GeneratedFunction.
	GeneratedColumn   = "lab_twice"
	GeneratedFunction = "lab_digest"
)

// rowCostBurn is the work the costly functions do per call, as
// TriggerCPU's (about 0.2 ms of CPU on the lab's VM).
const rowCostBurn = "PERFORM sum(g) FROM generate_series(1, 2000) g;"

// CostlyCheck adds CheckName to the subscriber's hot: CHECK
// (CheckFunction(k)), a PL/pgSQL function that computes per call. It is
// added NOT VALID (the rows already there are not checked, which at 1M rows
// would take minutes); every row an UPDATE writes is, so the apply worker
// calls it once per replicated row.
var CostlyCheck = Step{Name: "costly check constraint", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: CHECK constraint %s on the subscriber's hot calls %s(k), which runs %q, for every row written until the window ends\n", CheckName, CheckFunction, rowCostBurn)
	return Exec(ctx, d.p.Sub.ConnString(Database),
		quote.SQL("CREATE FUNCTION %I(k bigint) RETURNS boolean LANGUAGE plpgsql AS %L", CheckFunction, "BEGIN "+rowCostBurn+" RETURN k >= 0; END").Text,
		quote.SQL("ALTER TABLE hot ADD CONSTRAINT %I CHECK (%I(k)) NOT VALID", CheckName, CheckFunction).Text)
}, Lift: func(p *Pair) {
	liftOnSubscriber(p,
		quote.SQL("ALTER TABLE hot DROP CONSTRAINT IF EXISTS %I", CheckName).Text,
		quote.SQL("DROP FUNCTION IF EXISTS %I(bigint)", CheckFunction).Text)
}}

// ExpressionIndexDef is the definition of ExpressionIndexName: the words of
// a text made of the row's k, v and pad, repeated, for full-text search.
// The expression reads k and v, which every lab UPDATE changes, so no
// update is HOT: the apply worker parses the text and inserts its words
// into the index for every replicated row.
const ExpressionIndexDef = "USING gin (to_tsvector('english', repeat(k::text || ' ' || v::text || ' ' || pad || ' ', 8)))"

// ExpressionIndex creates ExpressionIndexName on the subscriber's hot.
var ExpressionIndex = Step{Name: "expression index", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: GIN index %s on the subscriber's hot %s: every replicated row is tokenized until the window ends\n", ExpressionIndexName, ExpressionIndexDef)
	return Exec(ctx, d.p.Sub.ConnString(Database), quote.SQL("CREATE INDEX %I ON hot %s", ExpressionIndexName, quote.Raw(ExpressionIndexDef)).Text)
}, Lift: func(p *Pair) {
	liftOnSubscriber(p, quote.SQL("DROP INDEX IF EXISTS %I", ExpressionIndexName).Text)
}}

// CostlyGeneratedColumn adds GeneratedColumn to the subscriber's hot, GENERATED
// ALWAYS AS (GeneratedFunction(k)) STORED: the apply worker computes it for
// every replicated row. Adding the column computes it for every row already
// there (1M rows at 0.2 ms is over 3 minutes), so the function is created
// with the same result and without its work, and given its work once the
// column is there: the rows keep the values the costly function gives.
var CostlyGeneratedColumn = Step{Name: "costly generated column", Start: func(ctx context.Context, d *driver) error {
	fmt.Fprintf(d.o.Log, "lab: column %s of the subscriber's hot is GENERATED ALWAYS AS (%s(k)) STORED, which runs %q, for every row written until the window ends\n", GeneratedColumn, GeneratedFunction, rowCostBurn)
	fn := func(burn string) string {
		return quote.SQL("CREATE OR REPLACE FUNCTION %I(k bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS %L", GeneratedFunction, "BEGIN "+burn+" RETURN k * 2; END").Text
	}
	return Exec(ctx, d.p.Sub.ConnString(Database),
		fn(""),
		quote.SQL("ALTER TABLE hot ADD COLUMN %I bigint GENERATED ALWAYS AS (%I(k)) STORED", GeneratedColumn, GeneratedFunction).Text,
		fn(rowCostBurn))
}, Lift: func(p *Pair) {
	liftOnSubscriber(p,
		quote.SQL("ALTER TABLE hot DROP COLUMN IF EXISTS %I", GeneratedColumn).Text,
		quote.SQL("DROP FUNCTION IF EXISTS %I(bigint)", GeneratedFunction).Text)
}}

// liftOnSubscriber runs stmts on the subscriber, if there. It does not
// depend on a context: it runs on cancellation too.
func liftOnSubscriber(p *Pair, stmts ...string) {
	if p == nil || p.Sub == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	Exec(ctx, p.Sub.ConnString(Database), stmts...)
}
