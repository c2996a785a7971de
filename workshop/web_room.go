package workshop

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/outboxlab/outboxlab/lessons"
)

// The room as a web page for the projector (/room): the instructor's
// list, live, and a learner's screen watched read-only. The instructor
// token the room prints at start lets one in: /room?token=T sets it as a
// cookie (HttpOnly, SameSite=Strict) and sends the browser on to /room,
// so the token leaves the address bar and the page's EventSources carry
// it.

// roomCookie holds the instructor token in the instructor's browser.
const roomCookie = "outboxlab_room"

// roomEvery is how often the room's page gets the list and a watched
// screen when they changed.
const roomEvery = 300 * time.Millisecond

// newRoomToken is a fresh instructor token.
func newRoomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// RoomToken is the instructor token for the room's page ("" without
// --web).
func (r *Room) RoomToken() string {
	if r.web == nil {
		return ""
	}
	return r.web.token
}

func (d *webDoor) roomRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /room", d.roomPage)
	mux.HandleFunc("GET /room/learners", d.instructor(d.roomList))
	mux.HandleFunc("GET /room/watch/{id}", d.instructor(d.roomWatch))
}

// isInstructor says the request carries the room's token.
func (d *webDoor) isInstructor(req *http.Request) bool {
	c, err := req.Cookie(roomCookie)
	return err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(d.token)) == 1
}

// instructor lets through requests with the token only.
func (d *webDoor) instructor(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) {
		if !d.isInstructor(req) {
			http.Error(w, "the room's page needs the instructor token the room printed at start", http.StatusUnauthorized)
			return
		}
		h(w, req)
	}
}

// roomPage is the page, or with ?token= the cookie and a redirect.
func (d *webDoor) roomPage(w http.ResponseWriter, req *http.Request) {
	if tok := req.URL.Query().Get("token"); tok != "" {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(d.token)) != 1 {
			http.Error(w, "wrong instructor token", http.StatusUnauthorized)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: roomCookie, Value: d.token, Path: "/room", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		http.Redirect(w, req, "/room", http.StatusSeeOther)
		return
	}
	if !d.isInstructor(req) {
		http.Error(w, "the room's page needs the instructor token the room printed at start: open /room?token=TOKEN", http.StatusUnauthorized)
		return
	}
	b, err := webAssets.ReadFile("webassets/room.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

// roomLearner is one line of the room's page.
type roomLearner struct {
	ID, User, Door, Lesson        string
	Place                         lessons.Place
	Connected, Ready, Idle, Stuck bool
	Step, Steps                   int
	OnStep                        string
	Checks, Total, Hints, Passed  int
	Hand                          bool
	HandText                      string
}

func roomLines(vs []LearnerView) []roomLearner {
	out := make([]roomLearner, 0, len(vs))
	for _, v := range vs {
		out = append(out, roomLearner{ID: v.ID, User: v.User, Door: v.Door, Lesson: v.Lesson, Place: v.Place, Connected: v.Connected, Ready: v.Ready,
			Idle: v.Idle, Stuck: v.Stuck, Step: v.Step, Steps: v.Steps, OnStep: round(v.OnStep), Checks: v.Checks, Total: v.Total,
			Hints: v.Hints, Passed: v.Passed, Hand: !v.Hand.IsZero(), HandText: v.HandText})
	}
	return out
}

// events starts a text/event-stream: the server's write deadline is for
// requests, this lasts as long as the page looks.
func events(w http.ResponseWriter) (flush func(data string) error) {
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	return func(data string) error {
		if _, err := fmt.Fprintf(w, "data: %s\n\n", strings.ReplaceAll(data, "\n", "\ndata: ")); err != nil {
			return err
		}
		return rc.Flush()
	}
}

// roomList streams the room's list, as the instructor's screen has it,
// each time it changes.
func (d *webDoor) roomList(w http.ResponseWriter, req *http.Request) {
	send := events(w)
	last := ""
	t := time.NewTicker(roomEvery)
	defer t.Stop()
	for {
		b, _ := json.Marshal(roomLines(d.room.Learners()))
		if s := string(b); s != last {
			if send(s) != nil {
				return
			}
			last = s
		}
		select {
		case <-req.Context().Done():
			return
		case <-t.C:
		}
	}
}

// roomWatch streams a learner's screen as the room last drew it, while
// the page looks: the learner's screen says they are watched, as when the
// instructor looks from the terminal.
func (d *webDoor) roomWatch(w http.ResponseWriter, req *http.Request) {
	id := req.PathValue("id")
	r := d.room
	r.mu.Lock()
	known := r.learners[id] != nil
	r.mu.Unlock()
	if !known {
		http.Error(w, "no learner "+id, http.StatusNotFound)
		return
	}
	r.Watch(id, true)
	defer r.Watch(id, false)
	send := events(w)
	last := "\x00"
	t := time.NewTicker(roomEvery)
	defer t.Stop()
	for {
		if f := r.Frame(id); f != last {
			if send(f) != nil {
				return
			}
			last = f
		}
		select {
		case <-req.Context().Done():
			return
		case <-t.C:
		}
	}
}
