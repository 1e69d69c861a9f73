module copperhead

go 1.26

require (
	codeberg.org/readeck/go-readability/v2 v2.1.3
	github.com/chzyer/readline v1.5.1
	github.com/kljensen/snowball v0.10.0
	github.com/oklog/ulid/v2 v2.1.2
	github.com/rogpeppe/go-internal v1.16.0
	github.com/spf13/cobra v1.10.2
	github.com/yuin/goldmark v1.8.7
	golang.org/x/net v0.41.0
)

require (
	github.com/andybalholm/cascadia v1.3.3 // indirect
	github.com/go-shiori/dom v0.0.0-20230515143342-73569d674e1c // indirect
	github.com/gogs/chardet v0.0.0-20211120154057-b7413eaefb8f // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/itlightning/dateparse v0.2.1 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	golang.org/x/sys v0.33.0 // indirect
	golang.org/x/text v0.26.0 // indirect
	golang.org/x/tools v0.33.0 // indirect
)
