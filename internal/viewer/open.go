package viewer

import (
	"fmt"
	"os/exec"
	"runtime"
)

// OpenBrowser asks the desktop to open url in the user's browser
// (xdg-open, or open on macOS) and does not wait for it: the browser
// outlives the call, and its exit status says nothing about the page.
func OpenBrowser(url string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("open a browser: %s not found: open %s yourself", name, url)
	}
	cmd := exec.Command(bin, url)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("open a browser: %s: %w", name, err)
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
