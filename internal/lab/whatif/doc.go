// Package whatif holds the changes the lab makes on a pair held in a
// scenario's state ('lagscope lab whatif'), each keyed by the name of the
// remedy whose prediction it measures (internal/whatif's Remedy.Change):
// the change's Apply, the states it is measured from, and the backlog it
// queues first when the state's own would drain too soon.
package whatif
