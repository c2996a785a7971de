// Package quit ends a bubbletea program on the signals a terminal sends, for
// both screens (the simulator's and the deployment's), which import no
// common package otherwise.
package quit
