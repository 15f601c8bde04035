// Package model holds every decision lagscope makes about a replication
// path: it names the stage that limits it, explains the verdict, and
// predicts what a remedy would buy (the what-if planner). It is a pure
// function of recorded samples (see package sample and package
// measure): the same Recording always gives the same Verdict, and it never
// reads the clock. The rules follow the diagnosis model: positions alone never
// locate the bottleneck, process behaviour does, and run-queue delay tells a
// starved process from one that waits for the network.
//
// The model is data, in three tables read in this order:
//
//   - rules (rules.go) is the precedence: the first rule that holds decides
//     the path's diagnosis: the limiting stage, what fills its time, a
//     large transaction's phase, the cause, the margins the confidence
//     follows, and what it decided on (its basis: a stage's figures, the
//     link, a table's copy, the rates, ...). Rules write no text: Judge
//     states the evidence once from the diagnosis (evidence.go and the
//     evidence_*.go files), in a fixed order: what the rule decided on,
//     what the diagnosis adds (a second resource, a parallel apply worker),
//     then the path's lines (the next limit, the lag in time, the rates);
//   - stageNames (stagenames.go) names a stage verdict from its limiting
//     stage and what fills its time;
//   - adviceFor (verdicts.go) and variants (variants.go) give the headline,
//     cause and advice, derived once from the diagnosis (withTexts). Each
//     remedy is an Advice whose key (advice.go) says which remedy it is, so
//     that code that fits the advice (to a parallel worker, to the pair's
//     setup) decides by key, never by the remedy's wording. Its text and
//     the causes are prose; every statement it prints is in its Run,
//     built by package quote from the names the rule read (the slot, the
//     subscription, a blocker's pid and start time), never formatted
//     into a text.
//
// Classify is Judge (the verdict, its limit, evidence and confidence)
// then Explain (its texts). A caller that reads the pair's setup (package
// diagnose) calls the two apart and hands Explain the Setup that FromSetup
// decides from what it read (SetupRead): the findings named as the cause,
// their fixes and the remedies the setup, or the servers' versions
// (pgversion.Feature), rule out by key, combined with the verdict's own
// cause and advice in withTexts, in the same derivation, not rewritten
// afterwards.
//
// Names are typed: a verdict is a VerdictName, a stage a StageName (found
// in a path's Stages by its name, never by its place), a remedy of the
// advice a RemedyID, each with its constants here; the audit checks the
// model reads are named once, in checks.go.
//
// Table (verdicts.go) lists every verdict with what the rest of lagscope
// derives from its name. A test keeps README's rule list and docs/verdicts
// in step with these tables.
//
// The what-if planner (Plan; WhatIf wires a path's facts and setup into
// it) predicts what a remedy would buy a replication path: its
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
// docs/whatif.md (lagscope lab whatif); the lab's figures they rest on are
// a named Calibration profile the model receives with its input.
package model
