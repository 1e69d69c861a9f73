package kicadcli

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"copperhead/internal/atomicfile"
)

// Library tables KiCad reads from its config folder. kicad-cli does not
// create a missing sym-lib-table (it only copies a default fp-lib-table), and
// without one every standard symbol is reported as lib_symbol_issues.
const (
	symLibTable = "sym-lib-table"
	fpLibTable  = "fp-lib-table"
)

// kicadEnv is the private KiCad environment every kicad-cli run gets, so a
// result never depends on the user's KiCad GUI settings:
//
//	KICAD_CONFIG_HOME=<run folder>/kicad-config, a fresh folder per run
//	  holding <major.minor>/sym-lib-table and fp-lib-table (KiCad 9 reads
//	  $KICAD_CONFIG_HOME/9.0/, verified with kicad-cli 9.0.8);
//	KICAD9_SYMBOL_DIR / KICAD9_FOOTPRINT_DIR (for KiCad 9) pointing at the
//	  installed libraries, unless the user set them explicitly;
//	KICAD_CACHE_HOME and TMPDIR inside the run folder: kicad-cli keeps a
//	  single-instance lock in $TMPDIR/org.kicad.kicad/instances/, shared by
//	  every user of the machine otherwise;
//	HOME=<run folder> when HOME is unset.
//
// The one thing kicad-cli still writes outside the run folder is its lock
// file beside the project (~<name>.kicad_pro.lck), removed when it exits; a
// lock held by an open KiCad GUI does not stop it.
//
// The config folder is fresh for each run rather than shared because kicad-cli
// rewrites its own settings files (kicad_common.json, eeschema.json, ...) in
// place with O_TRUNC on first use: two concurrent runs sharing one folder
// could read each other's half-written files. The library tables themselves
// come from copperhead's own config folder (see seedTables), which users may
// edit to add libraries.
type kicadEnv struct {
	settingsDir string   // "9.0"; "" before the version is known
	symTable    []byte   // nil when no table was found
	fpTable     []byte   // nil when no table was found
	vars        []string // "KICAD9_SYMBOL_DIR=/usr/share/kicad/symbols", ...
	fingerprint string   // everything above, for cache keys
}

// newKicadEnv builds the environment for kicad-cli at binPath of version
// major.minor.
func newKicadEnv(binPath string, major, minor int) kicadEnv {
	e := kicadEnv{settingsDir: fmt.Sprintf("%d.%d", major, minor)}
	shares := shareDirs(binPath)

	var fp strings.Builder
	for _, v := range []struct{ name, sub string }{
		{fmt.Sprintf("KICAD%d_SYMBOL_DIR", major), "symbols"},
		{fmt.Sprintf("KICAD%d_FOOTPRINT_DIR", major), "footprints"},
	} {
		dir := os.Getenv(v.name) // an explicit setting is the user's choice, not GUI state
		if dir == "" {
			dir = firstDir(shares, v.sub)
			if dir != "" {
				e.vars = append(e.vars, v.name+"="+dir)
			}
		}
		// A library package upgrade replaces files, which changes the folder's
		// mtime: enough to invalidate cached results without hashing 180 MB.
		var mtime int64
		if fi, err := os.Stat(dir); dir != "" && err == nil {
			mtime = fi.ModTime().UnixNano()
		}
		fmt.Fprintf(&fp, "%s=%s@%d\n", v.name, dir, mtime)
	}

	templateDir := os.Getenv(fmt.Sprintf("KICAD%d_TEMPLATE_DIR", major))
	if templateDir == "" {
		templateDir = firstDir(shares, "template")
	}
	e.symTable, e.fpTable = seedTables(configRoot(), e.settingsDir, templateDir)
	fmt.Fprintf(&fp, "%s=%x\n%s=%x\n", symLibTable, sha256.Sum256(e.symTable), fpLibTable, sha256.Sum256(e.fpTable))
	e.fingerprint = fp.String()
	return e
}

// prepare creates the private KiCad config inside the run folder dir and
// returns the environment for kicad-cli.
func (e kicadEnv) prepare(dir string) ([]string, error) {
	config := filepath.Join(dir, "kicad-config")
	settings := filepath.Join(config, e.settingsDir)
	if err := os.MkdirAll(settings, 0o755); err != nil {
		return nil, err
	}
	for _, tbl := range []struct {
		name string
		data []byte
	}{{symLibTable, e.symTable}, {fpLibTable, e.fpTable}} {
		if tbl.data == nil || e.settingsDir == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(settings, tbl.name), tbl.data, 0o644); err != nil {
			return nil, err
		}
	}
	env := make([]string, 0, len(os.Environ())+len(e.vars)+4)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "KICAD_CONFIG_HOME", "KICAD_CACHE_HOME", "TMPDIR":
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"KICAD_CONFIG_HOME="+config,
		"KICAD_CACHE_HOME="+filepath.Join(dir, "kicad-cache"),
		"TMPDIR="+dir,
	)
	if os.Getenv("HOME") == "" {
		env = append(env, "HOME="+dir)
	}
	return append(env, e.vars...), nil
}

// configRoot is copperhead's own KiCad config folder:
// COPPERHEAD_KICAD_CONFIG, else <user config dir>/copperhead/kicad. Its
// layout mirrors KICAD_CONFIG_HOME (<major.minor>/sym-lib-table, ...), so a
// user can also point KiCad itself at it.
func configRoot() string {
	return userDir("COPPERHEAD_KICAD_CONFIG", os.UserConfigDir, "copperhead", "kicad")
}

// seedReadme explains the folder seedTables creates.
const seedReadme = `# copperhead's KiCad library tables

copperhead runs kicad-cli with a private KiCad configuration so results never
depend on your KiCad GUI settings. The sym-lib-table and fp-lib-table in the
version folder here (e.g. 9.0/) are copied into that configuration for every
run. They start as copies of KiCad's default tables; edit them to add global
libraries, or delete them to start again from KiCad's defaults.
`

// seedTables returns the global library tables kicad-cli runs should see:
// those in root/<settingsDir>/, created from KiCad's template tables in
// templateDir when missing. An existing table is never overwritten, so a
// user's edits stick. Creation is idempotent and race-safe: each file is
// written with a rename, so two copperhead processes seeding at once both
// write the same complete bytes and a reader never sees half a table. When
// the folder cannot be written the template's tables are still used.
func seedTables(root, settingsDir, templateDir string) (sym, fp []byte) {
	read := func(name string) []byte {
		var seed string
		if root != "" {
			seed = filepath.Join(root, settingsDir, name)
			if data, err := os.ReadFile(seed); err == nil {
				return data
			}
		}
		if templateDir == "" {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(templateDir, name))
		if err != nil {
			return nil
		}
		if seed != "" && atomicfile.Write(seed, data, 0o644) == nil {
			if readme := filepath.Join(root, "README.md"); !exists(readme) {
				atomicfile.Write(readme, []byte(seedReadme), 0o644)
			}
		}
		return data
	}
	return read(symLibTable), read(fpLibTable)
}

// shareDirs lists where KiCad's shared data (libraries, templates) may live,
// most specific first: next to the binary (a relocated or self-built
// install), then the usual system prefixes.
func shareDirs(binPath string) []string {
	var dirs []string
	if real, err := filepath.EvalSymlinks(binPath); err == nil {
		dirs = append(dirs, filepath.Join(filepath.Dir(filepath.Dir(real)), "share", "kicad"))
	}
	for _, d := range []string{"/usr/share/kicad", "/usr/local/share/kicad"} {
		if len(dirs) == 0 || dirs[0] != d {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// firstDir returns the first root/sub that is a folder, or "".
func firstDir(roots []string, sub string) string {
	for _, r := range roots {
		p := filepath.Join(r, sub)
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
	}
	return ""
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
