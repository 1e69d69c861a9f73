package command

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"copperhead/internal/carter/corpus"
	"copperhead/internal/carter/orchestrator"
	"copperhead/internal/carter/regress"
	"copperhead/internal/carter/retrieve"
	"copperhead/internal/carter/synth"
)

// DefaultCases is the shipped regression suite, relative to the repository
// root.
const DefaultCases = "tests/regression_cases.json"

func (a *app) regressCmd() *cobra.Command {
	var corpusDir, model, out string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "regress [cases.json]",
		Short: "Run the regression cases and fail when any falls below its grounding or coverage bar or misses a required fact",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := DefaultCases
			if len(args) == 1 {
				path = args[0]
			}
			suite, err := regress.Load(path)
			if err != nil {
				return usageError{err}
			}
			if corpusDir != "" {
				suite.Corpus = corpusDir
			}
			needDefault := false
			for _, c := range suite.Cases {
				needDefault = needDefault || c.Corpus == ""
			}
			if needDefault && suite.Corpus == "" {
				return usagef("regression cases %s: no corpus (set \"corpus\" in the file or pass --corpus)", path)
			}
			scratch, err := os.MkdirTemp("", "carter-corpora-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(scratch)
			var def *corpus.Corpus
			var defLoad time.Duration
			if needDefault {
				began := time.Now()
				if def, err = corpus.Load(cmd.Context(), suite.Corpus); err != nil {
					return usageError{err}
				}
				defLoad = time.Since(began)
			}
			// Each named corpus is loaded once; one that is not on this
			// machine skips its cases with the reason, it does not fail them.
			// Its loading time is counted in each of its briefs' time.
			rets, skips, loads, err := regress.OpenCorpora(cmd.Context(), suite, scratch, func(line string) { fmt.Fprintln(a.io.Err, "carter: "+line) })
			if err != nil {
				return usageError{err}
			}
			loads[""] = defLoad
			// Checked once up front so a bad model fails before any case runs.
			s, modelID, err := a.synthesizer(model)
			if err != nil {
				return err
			}
			newSynth := func() synth.Synthesizer { return s }
			if out == "" {
				tmp, err := os.MkdirTemp("", "carter-regress-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(tmp)
				out = tmp
			}
			outs, err := regress.Run(cmd.Context(), suite, regress.Config{
				Retriever: retrieverOrNil(def), Retrievers: rets, Skips: skips, Loads: loads, Synth: newSynth, Model: modelID, OutDir: out,
				Options: func(o *orchestrator.Options) { o.Redactor, o.Now = a.redactor, a.deps.Now },
			})
			if err != nil {
				return fmt.Errorf("regress: %w", err)
			}
			if asJSON {
				if err := a.printJSON(outs); err != nil {
					return err
				}
			} else {
				fmt.Fprint(a.io.Out, regress.Table(outs))
			}
			for _, o := range outs {
				if !o.Pass {
					return exitError{ExitFailed}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&corpusDir, "corpus", "", "corpus folder (overrides the cases file's)")
	cmd.Flags().StringVar(&model, "model", "extractive", "synthesizer model (default extractive: no model)")
	cmd.Flags().StringVar(&out, "out", "", "keep the runs in this folder (default: a temporary folder, removed)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the outcomes as JSON")
	return cmd
}

// retrieverOrNil keeps a nil *Corpus from becoming a non-nil interface.
func retrieverOrNil(c *corpus.Corpus) retrieve.Retriever {
	if c == nil {
		return nil
	}
	return c
}
