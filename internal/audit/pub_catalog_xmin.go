package audit

import (
	"fmt"

	"github.com/lagscope/lagscope/internal/quote"
)

// CheckOldCatalogXmin is the ID of oldCatalogXmin: its page is docs/checks/old-catalog-xmin.md.
const CheckOldCatalogXmin CheckID = "old-catalog-xmin"

// oldCatalogXmin: a slot's catalog_xmin holds back vacuum of the catalogs.
var oldCatalogXmin = Check{
	ID:       CheckOldCatalogXmin,
	Title:    "no slot holds catalog_xmin far back",
	Severity: Error,
	Side:     PublisherSide,
	Needs:    []Section{PubSettings, PubSlots},
	Run: func(s Snapshots) []Finding {
		p := s.Publisher
		freeze, ok := p.Settings.Int("autovacuum_freeze_max_age")
		if !ok || freeze <= 0 {
			freeze = 200_000_000
		}
		var out []Finding
		for _, sl := range p.Slots {
			if sl.CatalogXminAge < freeze/2 {
				continue
			}
			sev := Warning
			if sl.CatalogXminAge >= freeze {
				sev = Error
			}
			state := "active"
			if !sl.Active {
				state = "inactive"
			}
			out = append(out, Finding{
				Severity: sev,
				Objects:  []string{"slot " + id(sl.Name)},
				Found: fmt.Sprintf("Slot %s (%s) has a catalog_xmin %d transactions old (%.0f%% of autovacuum_freeze_max_age = %d).",
					id(sl.Name), state, sl.CatalogXminAge, 100*float64(sl.CatalogXminAge)/float64(freeze), freeze),
				Why: "VACUUM cannot remove or freeze system-catalog rows newer than a slot's catalog_xmin: the catalogs bloat, " +
					"anti-wraparound vacuums of them cannot finish past autovacuum_freeze_max_age, and at about 2 billion " +
					"the server stops assigning transaction IDs.",
				Fix: "Let its consumer catch up (an active, caught-up slot advances catalog_xmin), or drop the slot if its consumer is gone.",
				Run: []quote.Statement{dropSlot(sl.Name)},
			})
		}
		return out
	},
}
