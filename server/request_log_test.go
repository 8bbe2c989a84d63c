package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"
)

// Every request is logged as one line with its method, path, status and duration, at info level,
// and not at all when the handler leaves info out.
func TestRequestLogLine(t *testing.T) {
	before := slog.Default()
	t.Cleanup(func() { slog.SetDefault(before) })
	var out bytes.Buffer
	slog.SetDefault(slog.New(slog.NewJSONHandler(&out, nil)))
	logRequest(httptest.NewRequest("GET", "/extended/v1/block?limit=20", nil), 404, 1234*time.Microsecond)
	var line struct {
		Time       time.Time
		Level, Msg string
		Method     string
		Path       string
		Status     int
		DurationMS float64 `json:"duration_ms"`
	}
	if err := json.Unmarshal(out.Bytes(), &line); err != nil {
		t.Fatalf("%v: %s", err, out.Bytes())
	}
	if line.Level != "INFO" || line.Msg != "http request" || line.Method != "GET" || line.Path != "/extended/v1/block" ||
		line.Status != 404 || line.DurationMS != 1.234 || time.Since(line.Time) > time.Minute {
		t.Errorf("request logged as %s", out.Bytes())
	}
	out.Reset()
	slog.SetDefault(slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn})))
	logRequest(httptest.NewRequest("GET", "/extended", nil), 200, time.Millisecond)
	if out.Len() > 0 {
		t.Errorf("logged below the handler's level: %s", out.Bytes())
	}
}
