package terms

import "strings"

// FoldSpelling maps a lower-case British spelling to the American one, so a
// question asked in either meets a corpus written in the other: -our/-or
// (behaviour, colour), -ise/-ize and -yse/-yze with their inflections
// (initialise, analysed), -re/-er (centre, metre), -elled/-eled
// (cancelled), and a list of single words (licence, grey, catalogue). It is
// applied to corpus and question alike, so a fold that produces a non-word
// ("rise" -> "rize") is harmless: only two different words meeting would
// cost anything, and the rules avoid the ones that would (four, your, hour).
func FoldSpelling(w string) string {
	if v, ok := ukWords[w]; ok {
		return v
	}
	if strings.Contains(w, "our") {
		for _, base := range ourBases {
			if strings.HasPrefix(w, base+"our") {
				return base + "or" + w[len(base)+3:]
			}
		}
	}
	for _, sfx := range izeSuffixes {
		if strings.HasSuffix(w, sfx[0]) && len(w)-len(sfx[0]) >= 3 {
			return w[:len(w)-len(sfx[0])] + sfx[1]
		}
	}
	for _, base := range reBases {
		for _, end := range []string{"re", "res", "red"} {
			if strings.HasSuffix(w, base+end) {
				return w[:len(w)-len(end)] + "er" + end[2:]
			}
		}
	}
	for _, sfx := range [][2]string{{"elled", "eled"}, {"elling", "eling"}, {"eller", "eler"}} {
		if strings.HasSuffix(w, sfx[0]) && len(w) > len(sfx[0])+1 {
			return w[:len(w)-len(sfx[0])] + sfx[1]
		}
	}
	return w
}

// ourBases are the stems whose British "-our" is American "-or"
// (behaviour, behavioural, colours, favourite, neighbouring ...).
var ourBases = []string{"behavi", "col", "fav", "flav", "hon", "lab", "neighb", "harb", "rum", "hum", "vap",
	"arm", "endeav", "parl", "savi", "vig", "splend", "rig", "clam", "od", "fervor", "tum", "ard", "val"}

// izeSuffixes fold -ise/-yse and their inflections; each British ending
// maps to the American one.
var izeSuffixes = [][2]string{
	{"isations", "izations"}, {"isation", "ization"}, {"ising", "izing"}, {"ised", "ized"}, {"ises", "izes"},
	{"iser", "izer"}, {"isers", "izers"}, {"ise", "ize"},
	{"ysing", "yzing"}, {"ysed", "yzed"}, {"yses", "yzes"}, {"yser", "yzer"}, {"yse", "yze"},
}

// reBases are the stems whose British "-re" is American "-er".
var reBases = []string{"cent", "met", "lit", "fib", "theat", "calib", "spect", "lust", "sab", "somb", "meag"}

var ukWords = map[string]string{
	"licence": "license", "licences": "licenses", "licenced": "licensed", "defence": "defense", "defences": "defenses",
	"offence": "offense", "offences": "offenses", "pretence": "pretense", "grey": "gray", "greys": "grays",
	"programme": "program", "programmes": "programs", "catalogue": "catalog", "catalogues": "catalogs",
	"dialogue": "dialog", "dialogues": "dialogs", "analogue": "analog", "aluminium": "aluminum",
	"sulphur": "sulfur", "tyre": "tire", "tyres": "tires", "judgement": "judgment", "ageing": "aging",
	"acknowledgement": "acknowledgment", "artefact": "artifact", "artefacts": "artifacts", "mould": "mold",
	"moulds": "molds", "plough": "plow", "cheque": "check", "manoeuvre": "maneuver", "storey": "story",
	"enquiry": "inquiry", "enquiries": "inquiries", "whilst": "while", "amongst": "among",
}
