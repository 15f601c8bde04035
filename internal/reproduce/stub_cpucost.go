package reproduce

import "context"

func runCPUCost(ctx context.Context, o Options) (*Table, error) { return nil, errNotYet }
