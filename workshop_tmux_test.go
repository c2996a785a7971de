package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/outboxlab/outboxlab/internal/testrun"
)

// The check through the openssh client, in Spanish: the room in one
// tmux window, ana's ssh in another. The instructor sends ana to trace by
// keys (l, the picker), ana passes its first step (p C D) and moves on, the
// instructor pauses the room (ana's screen shows the message) and resumes
// it; ana's ssh is killed, she connects again and is on step 2/2; q stops
// the room (exit 0).
func TestWorkshopThroughOpenSSHInTmux(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("boots PostgreSQL")
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no openssh client: .ci/run installs it (apt-get install openssh-client)")
		}
		t.Skip("no openssh client (apt-get install openssh-client)")
	}
	// Port 0: the room takes a free port as it listens, and its screen
	// says which. A port found free first and given to it could be taken
	// meanwhile (the package's other tests open connections by the
	// thousand, each from an ephemeral port): the clean-clone CI once saw
	// the room gone before it drew.
	room, _ := startTUI(t, "workshop", "", "workshop --ssh 127.0.0.1:0 --lang es")
	screen := room.waitFor("the room", regexp.MustCompile(`participantes conectados`), 120*time.Second)
	access := regexp.MustCompile(`ssh -p ([0-9]+) NOMBRE@127\.0\.0\.1`).FindStringSubmatch(screen)
	if access == nil {
		t.Fatalf("the room's screen does not say where to connect (ssh -p PORT NOMBRE@127.0.0.1):\n%s", screen)
	}
	sshCmd := "LANG=es_ES.UTF-8 ssh -o SendEnv=LANG -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -p " + access[1] + " ana@127.0.0.1; sleep 30"
	ana := tmuxTerm{t: t, socket: room.socket}
	open := func() {
		if out, err := room.tmux("new-window", "-d", "-t", "e2e", "-n", "ana", sshCmd); err != nil {
			t.Fatalf("tmux new-window: %v %s", err, out)
		}
	}
	anaScreen := func() string { out, _ := ana.tmux("capture-pane", "-p", "-t", "e2e:ana"); return out }
	anaKeys := func(ks ...string) {
		for _, k := range ks {
			if out, err := ana.tmux("send-keys", "-t", "e2e:ana", k); err != nil {
				t.Fatalf("send-keys: %v %s", err, out)
			}
			time.Sleep(400 * time.Millisecond) // pacing: keys at a person's pace, the program's answer to one before the next
		}
	}
	anaWait := func(what string, re *regexp.Regexp) {
		t.Helper()
		testrun.Awaited(t, 60*time.Second, "ana's screen showing "+what, anaScreen, re.MatchString)
	}
	open()
	room.waitFor("ana in the room", regexp.MustCompile(`ana +dual-write +1/2 .*trabajando`), 60*time.Second)
	anaWait("the first lesson", regexp.MustCompile(`dual-write`))

	room.keys("l")
	room.waitFor("the lesson picker", regexp.MustCompile(`Enviar a ana a:`), 10*time.Second)
	room.downTo(regexp.MustCompile(`▸ 13 trace`), 25)
	room.keys("Enter")
	// Working, not starting: its simulation is built and keys act.
	room.waitFor("ana on trace, ready", regexp.MustCompile(`ana +trace +1/2 .*trabajando`), 60*time.Second)
	anaWait("trace on her screen", regexp.MustCompile(`lección trace`))
	anaKeys("p", "C", "D")
	anaWait("the step passed", regexp.MustCompile(`paso superado`))
	room.waitFor("the pass in the room", regexp.MustCompile(`ana +trace +1/2 .* 6/6 +0 +1 `), 30*time.Second)
	anaKeys("Enter")
	room.waitFor("ana on step 2", regexp.MustCompile(`ana +trace +2/2`), 30*time.Second)

	room.keys("p")
	room.waitFor("the pause prompt", regexp.MustCompile(`Pausar la sala con un mensaje`), 10*time.Second)
	for _, r := range "Mirad el proyector" {
		room.keys(string(r))
	}
	room.keys("Enter")
	anaWait("the pause", regexp.MustCompile(`Mirad el proyector`))
	room.keys("p")
	anaWait("the room resumed", regexp.MustCompile(`p pago`))

	if out, err := room.tmux("kill-window", "-t", "e2e:ana"); err != nil {
		t.Fatalf("kill ana's ssh: %v %s", err, out)
	}
	room.waitFor("ana disconnected", regexp.MustCompile(`ana +trace +2/2 .*desconectado`), 30*time.Second)
	open()
	room.waitFor("ana back on step 2", regexp.MustCompile(`ana +trace +2/2 .*trabajando`), 60*time.Second)
	anaWait("step 2 on her screen", regexp.MustCompile(`2/2`))

	// q asks first; y closes the room after a countdown every learner
	// sees; then each learner's session ends as their own q would, and
	// their terminal is as it was before ssh: the main screen, no mouse
	// tracking, the cursor shown.
	room.keys("q")
	room.waitFor("the stop asked first", regexp.MustCompile(`¿Cerrar la sala\? 1 participantes conectados`), 10*time.Second)
	room.keys("y")
	anaWait("the countdown", regexp.MustCompile(`La sala se cierra en [0-9]+ s`))
	room.waitFor("the room stopped", regexp.MustCompile(`EXITED 0`), 60*time.Second)
	left := false
	defer func() {
		if !left {
			t.Logf("ana's screen:\n%s", anaScreen())
		}
	}()
	testrun.Awaited(t, 10*time.Second, "ana's terminal after the room closed: alternate screen, mouse, cursor 0 0 1 (as her own q leaves it)", func() string {
		out, err := ana.tmux("display", "-p", "-t", "e2e:ana", "#{alternate_on} #{mouse_any_flag} #{cursor_flag}")
		if err != nil {
			t.Fatalf("ana's terminal: %v %s", err, out)
		}
		return strings.TrimSpace(out)
	}, func(state string) bool { return state == "0 0 1" })
	left = true
}
