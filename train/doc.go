// Package train runs the training recipes of the ECL experiments: a base
// classifier trained with cross-entropy (the uncalibrated model), an
// auxiliary head trained on the frozen backbone, and the ECL fine-tuning of
// the main head on paired source and target mini-batches (docs/method.md, "The loss").
//
// Two recipes are offered. "notebook" follows the reference simulation
// notebook: stage 1 Adam 0.01 for 200 epochs with the rate ×0.1 at epochs 100
// and 150, stage 2 Adam 0.01 for 100 epochs, stage 3 Adam 1e-3 for 100 epochs
// with the loss λ_ce·CE + ECL. "paper" follows the paper's text: Adam 1e-3,
// 100 epochs and batch 100 in every stage; the paper's loss CE + λ·ECL with
// the adaptive λ = β^γ is Recipe.Adaptive. In both, stage 3 updates only the
// main head, as the reference code does.
//
// Other methods fine-tune the main head on the ECL stage's schedule and
// batches with FineTune: an Objective whose Loss replaces the
// cross-entropy (the focal loss of package experiment, say) or whose Term
// is added to it (Soft-ECE, DECE); Control is the cross-entropy alone.
//
// The auxiliary head can be fitted to see a covariate shift without target
// labels: AuxWeighted weights each source sample's loss (importance
// weights p_t/p_s, Shimodaira 2000), CrossFitAux gives each sample the
// estimate of a head fitted without it (cross-fitting, Chernozhukov et
// al. 2018), and ECL takes fixed Estimates from any other head (one
// recalibrated on the target, say).
package train
