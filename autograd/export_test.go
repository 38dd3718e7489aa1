package autograd

// GraphOps lists the primitives that made the nodes of y's graph that
// require gradients, for the external tests' coverage check.
func GraphOps(y *Var[float64]) []string {
	var ops []string
	for _, v := range topo(y) {
		if v.op != nil {
			ops = append(ops, v.op.name)
		}
	}
	return ops
}
