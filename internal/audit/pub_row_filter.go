package audit

import (
	"fmt"
	"strings"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckRowFilter is the ID of rowFilter: its page is docs/checks/row-filter.md.
const CheckRowFilter CheckID = "row-filter"

// rowFilter: row filters cost publisher CPU and constrain UPDATE/DELETE.
var rowFilter = Check{
	ID:          CheckRowFilter,
	Title:       "row filters and their cost",
	Severity:    Error,
	MinVersion:  15,
	VersionNote: "row filters are new in 15",
	Side:        PublisherSide,
	Needs:       []Section{PubPublications, PubTables},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		var out []Finding
		for _, t := range p.Tables {
			for _, e := range t.Published {
				if e.RowFilter == "" {
					continue
				}
				pub := p.publication(e.Publication)
				f := Finding{
					Severity: Info,
					Objects:  []string{"publication " + id(e.Publication), "table " + t.Qualified()},
					Found: fmt.Sprintf("Publication %s publishes %s WHERE %s; the table had %d inserts, %d updates and %d deletes "+
						"since statistics were reset.", id(e.Publication), t.Qualified(), e.RowFilter, t.Inserts, t.Updates, t.Deletes),
					Why: "The walsender evaluates the filter for every change of the table in every slot that uses the " +
						"publication - for an UPDATE on both the old and the new row, turning it into an INSERT or DELETE when " +
						"the row crosses the filter. That CPU is spent in the single decoding process of each slot.",
					Fix: "Keep the filter to cheap comparisons on the row's own columns (no function calls). If lagscope diagnose " +
						"names walsender-decode-cpu, simplify it: " + refilterHow,
					Run: refilter(e, t),
				}
				if pub != nil && (pub.Update || pub.Delete) && t.ReplicaIdentity != "full" {
					key := map[string]bool{}
					if ix := replicaIndex(t); ix != nil {
						for _, c := range ix.keyColumns() {
							key[c] = true
						}
					}
					var outside []string
					for _, c := range filterColumns(e.RowFilter, t.Columns) {
						if !key[c] {
							outside = append(outside, c)
						}
					}
					if len(outside) > 0 {
						f.Severity = Error
						f.Found += fmt.Sprintf(" The filter uses %s, which the replica identity does not cover, and the publication publishes UPDATE/DELETE.", ids(outside))
						f.Why = "PostgreSQL rejects every UPDATE and DELETE on the table (\"cannot update table ...: column used in the " +
							"publication WHERE expression is not part of the replica identity\"): the old row would not carry the column. " + f.Why
						f.Fix = fmt.Sprintf("Filter on identity columns only: %s Or widen the table's replica identity to cover %s "+
							"(see replica-identity-full). Publishing only inserts from %s would fix it too, but for every table "+
							"of the publication, not only this one.", refilterHow, ids(outside), id(e.Publication))
					}
				}
				out = append(out, f)
			}
		}
		return out
	},
}

// refilterHow says how to use refilter's statements.
const refilterHow = "the statements below drop this table from the publication and add it back with its column list " +
	"and the filter it has now, in one transaction, leaving the publication's other tables as they are: edit the WHERE " +
	"clause of the ADD TABLE statement to the new filter before running them."

// refilter changes the row filter of table t in the publication of e and
// nothing else: DROP TABLE and ADD TABLE (with t's column list and current
// filter, for the operator to edit) in one transaction. ALTER PUBLICATION
// ... SET TABLE would replace the publication's whole table list.
func refilter(e PubEntry, t Table) []quote.Statement {
	add := quote.SQL("ALTER PUBLICATION %I ADD TABLE %I WHERE (%s);", e.Publication, t.qname(), quote.Raw(e.RowFilter))
	if e.ColumnList {
		add = quote.SQL("ALTER PUBLICATION %I ADD TABLE %I (%I) WHERE (%s);", e.Publication, t.qname(), e.Columns, quote.Raw(e.RowFilter))
	}
	return []quote.Statement{
		quote.SQL("BEGIN;").OnServer(onPublisher).WithNote("one transaction: the publication's other tables stay published as they are"),
		quote.SQL("ALTER PUBLICATION %I DROP TABLE %I;", e.Publication, t.qname()).OnServer(onPublisher).
			WithNote("fails, changing nothing, if the table is published through its partitioned parent or its schema: change the filter there"),
		add.OnServer(onPublisher).WithNote("the filter it has now: edit it to the new one. The new filter applies to changes " +
			"from the commit on; rows already on the subscriber are neither copied nor removed again (resynchronise the " +
			"table if they must match)"),
		quote.SQL("COMMIT;").OnServer(onPublisher),
	}
}

// filterColumns returns the table columns a row filter's text names: bare
// identifiers (case-folded) and double-quoted ones, outside string literals.
func filterColumns(filter string, cols []Column) []string {
	names := map[string]bool{}
	for _, c := range cols {
		names[c.Name] = true
	}
	seen := map[string]bool{}
	var out []string
	add := func(id string) {
		if names[id] && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	isStart := func(b byte) bool { return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80 }
	isPart := func(b byte) bool { return isStart(b) || b >= '0' && b <= '9' || b == '$' }
	for i := 0; i < len(filter); {
		switch b := filter[i]; {
		case b == '\'':
			i++
			for i < len(filter) && !(filter[i] == '\'' && (i+1 >= len(filter) || filter[i+1] != '\'')) {
				if filter[i] == '\'' {
					i++
				}
				i++
			}
			i++
		case b == '"':
			j := strings.IndexByte(filter[i+1:], '"')
			if j < 0 {
				return out
			}
			add(filter[i+1 : i+1+j])
			i += j + 2
		case isStart(b):
			j := i
			for j < len(filter) && isPart(filter[j]) {
				j++
			}
			add(strings.ToLower(filter[i:j]))
			i = j
		case b >= '0' && b <= '9':
			for i < len(filter) && (isPart(filter[i]) || filter[i] == '.') {
				i++
			}
		default:
			i++
		}
	}
	return out
}
