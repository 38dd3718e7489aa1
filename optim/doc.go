// Package optim holds first-order optimisers (SGD with momentum and Nesterov,
// Adam) and learning-rate schedules, with PyTorch's update rules so that
// trajectories can be compared with reference code.
package optim
