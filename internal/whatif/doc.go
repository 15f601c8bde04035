// Package whatif predicts what a remedy would buy a replication path: its
// drain rate and catch-up time once the remedy is made. It is pure: it
// reads one window's stages (what each process did), its rates and the
// setup facts that bear on a remedy, and derives every figure from them.
//
// The model is the stage model's: a stage that spends a share u of the
// window on its own work (CPU, run queue, its own waits) carries today's
// drain d in that share, so its capacity is d / u; the limit's is d. A
// remedy multiplies the capacity of the stage it changes by a factor, and
// the path then drains at the smallest capacity of all stages: a remedy on
// the limit is capped by the next limit. Each remedy's factor, where it
// comes from, and how its predictions met the lab's measurements are in
// docs/whatif.md (lagscope lab whatif).
package whatif
