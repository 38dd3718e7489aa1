// Package sim generates the paper's simulated covariate shift
// (docs/method.md, "Data"): two features, three classes with a
// deterministic labelling function shared by both domains (Label), and
// source and target inputs drawn from shifted normal or uniform
// distributions (Kind: Normal and Uniform as in the paper, NormalWide and
// UniformWide as in the reference notebook).
//
// Generate draws a source and a target split of one shift from a random
// stream; the same stream state gives the same splits:
//
//	src, tgt := sim.Generate(sim.Uniform, 400, rand.New(rand.NewPCG(1, 1)))
//
// ParseKind reads a shift's name as String writes it, as the command's
// flags give it.
package sim
