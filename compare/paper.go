package compare

import (
	"fmt"
	"strings"
)

// paperRow is one model's published numbers on one dataset: MRR and
// Hits@1 in %, correlations as fractions, over the columns of the paper's
// tables (positive structures then their avg; negation structures then
// their avg; uncertainty structures then their avg).
type paperRow struct {
	model             string
	mrr, hits1, neg   []float64 // nil where the paper has no row
	spearman, pearson []float64
}

// Column orders of the paper's tables.
var (
	epfoCols = []string{"1p", "2p", "3p", "2i", "3i", "pi", "ip", "2u", "up", "avg"}
	negCols  = []string{"2in", "3in", "inp", "pin", "pni", "avg"}
	corrCols = []string{"1p", "2p", "3p", "2i", "3i", "pi", "ip", "2in", "3in", "inp", "pin", "pni", "avg"}
)

// paper holds the GammaE paper's tables 1 (MRR, EPFO), 2 (MRR, negation),
// 3 (Spearman), its appendix Hits@1 and Pearson tables, by dataset. The
// paper gives no Hits@1 for ConE and no correlations for GQE or Query2Box.
var paper = map[string][]paperRow{
	"fb15k-237": {
		{model: "GQE", mrr: []float64{35.2, 7.4, 5.5, 23.6, 35.7, 16.7, 10.9, 8.4, 5.8, 16.6},
			hits1: []float64{22.4, 2.8, 2.1, 11.7, 20.9, 8.4, 5.7, 3.3, 2.1, 8.8}},
		{model: "Q2B", mrr: []float64{41.3, 9.9, 7.2, 31.1, 45.4, 21.9, 13.3, 11.9, 8.1, 21.1},
			hits1: []float64{28.3, 4.1, 3.0, 17.5, 29.5, 12.3, 7.1, 5.2, 3.3, 12.3}},
		{model: "BetaE", mrr: []float64{39.0, 10.9, 10.0, 28.8, 42.5, 22.4, 12.6, 12.4, 9.7, 20.9},
			hits1:    []float64{28.9, 5.5, 4.9, 18.3, 31.7, 14.0, 6.7, 6.3, 4.6, 13.4},
			neg:      []float64{5.1, 7.9, 7.4, 3.6, 3.4, 5.4},
			spearman: []float64{0.42, 0.55, 0.56, 0.59, 0.61, 0.60, 0.54, 0.71, 0.60, 0.35, 0.45, 0.64, 0.55},
			pearson:  []float64{0.23, 0.37, 0.45, 0.36, 0.31, 0.32, 0.33, 0.46, 0.41, 0.39, 0.36, 0.48, 0.37}},
		{model: "ConE", mrr: []float64{41.8, 12.8, 11.0, 32.6, 47.3, 25.5, 14.0, 14.5, 10.8, 23.4},
			neg:      []float64{5.4, 8.6, 7.8, 4.0, 3.6, 5.9},
			spearman: []float64{0.56, 0.61, 0.60, 0.79, 0.79, 0.74, 0.58, 0.90, 0.79, 0.56, 0.48, 0.85, 0.69},
			pearson:  []float64{0.40, 0.52, 0.61, 0.67, 0.69, 0.47, 0.49, 0.71, 0.66, 0.53, 0.47, 0.72, 0.58}},
		{model: "GammaE", mrr: []float64{43.2, 13.2, 11.0, 33.5, 47.9, 27.2, 15.9, 15.4, 11.3, 24.3},
			hits1:    []float64{32.1, 9.7, 8.3, 22.3, 35.6, 18.3, 8.7, 9.6, 8.3, 16.6},
			neg:      []float64{6.7, 9.4, 8.6, 4.8, 4.4, 6.78},
			spearman: []float64{0.61, 0.68, 0.62, 0.78, 0.83, 0.79, 0.63, 0.86, 0.80, 0.60, 0.53, 0.79, 0.71},
			pearson:  []float64{0.49, 0.60, 0.63, 0.69, 0.69, 0.55, 0.54, 0.72, 0.70, 0.59, 0.52, 0.69, 0.62}},
	},
	"fb15k": {
		{model: "GQE", mrr: []float64{53.9, 15.5, 11.1, 40.2, 52.4, 27.5, 19.4, 22.3, 11.7, 28.2},
			hits1: []float64{34.2, 8.3, 5.0, 23.8, 34.9, 15.5, 11.2, 11.5, 5.6, 16.6}},
		{model: "Q2B", mrr: []float64{70.5, 23.0, 15.1, 61.2, 71.8, 41.8, 28.7, 37.7, 19.0, 40.1},
			hits1: []float64{52.0, 12.7, 7.8, 40.5, 53.4, 26.7, 16.7, 22.0, 9.4, 26.8}},
		{model: "BetaE", mrr: []float64{65.1, 25.7, 24.7, 55.8, 66.5, 43.9, 28.1, 40.1, 25.2, 41.6},
			hits1:    []float64{52.0, 17.0, 16.9, 43.5, 55.3, 32.3, 19.3, 28.1, 16.9, 31.3},
			neg:      []float64{14.3, 14.7, 11.5, 6.5, 12.4, 11.8},
			spearman: []float64{0.37, 0.48, 0.47, 0.57, 0.40, 0.52, 0.42, 0.62, 0.55, 0.46, 0.47, 0.61, 0.50},
			pearson:  []float64{0.22, 0.36, 0.38, 0.39, 0.30, 0.31, 0.31, 0.44, 0.41, 0.34, 0.36, 0.44, 0.36}},
		{model: "ConE", mrr: []float64{73.3, 33.8, 29.2, 64.4, 73.7, 50.9, 35.7, 55.7, 31.4, 49.8},
			neg:      []float64{17.9, 18.7, 12.5, 9.8, 15.1, 14.8},
			spearman: []float64{0.60, 0.68, 0.70, 0.68, 0.52, 0.59, 0.56, 0.84, 0.75, 0.61, 0.58, 0.80, 0.66},
			pearson:  []float64{0.33, 0.53, 0.59, 0.5, 0.45, 0.37, 0.42, 0.65, 0.55, 0.50, 0.52, 0.64, 0.50}},
		{model: "GammaE", mrr: []float64{76.5, 36.9, 31.4, 65.4, 75.1, 53.9, 39.7, 57.1, 34.5, 52.3},
			hits1:    []float64{58.3, 25.4, 20.4, 50.4, 59.3, 37.3, 23.4, 35.1, 21.1, 36.7},
			neg:      []float64{20.1, 20.5, 13.5, 11.8, 17.1, 16.6},
			spearman: []float64{0.65, 0.75, 0.72, 0.73, 0.58, 0.63, 0.62, 0.82, 0.79, 0.65, 0.63, 0.77, 0.70},
			pearson:  []float64{0.39, 0.63, 0.65, 0.55, 0.53, 0.43, 0.53, 0.65, 0.61, 0.55, 0.59, 0.65, 0.56}},
	},
	"nell": {
		{model: "GQE", mrr: []float64{33.1, 12.1, 9.9, 27.3, 35.1, 18.5, 14.5, 8.5, 9.0, 18.7},
			hits1: []float64{15.4, 6.7, 5.0, 14.3, 20.4, 10.6, 9.0, 2.9, 5.0, 9.9}},
		{model: "Q2B", mrr: []float64{42.7, 14.5, 11.7, 34.7, 45.8, 23.2, 17.4, 12.0, 10.7, 23.6},
			hits1: []float64{23.8, 8.7, 6.9, 20.3, 31.5, 14.3, 10.7, 5.0, 6.0, 14.1}},
		{model: "BetaE", mrr: []float64{53.0, 13.0, 11.4, 37.6, 47.5, 24.1, 14.3, 12.2, 8.5, 24.6},
			hits1:    []float64{43.5, 8.1, 7.0, 27.2, 36.5, 17.4, 9.3, 6.9, 4.7, 17.8},
			neg:      []float64{5.1, 7.8, 10.0, 3.1, 3.5, 5.9},
			spearman: []float64{0.42, 0.55, 0.56, 0.59, 0.61, 0.60, 0.54, 0.71, 0.60, 0.35, 0.45, 0.64, 0.55},
			pearson:  []float64{0.24, 0.40, 0.43, 0.40, 0.39, 0.40, 0.40, 0.52, 0.51, 0.26, 0.35, 0.46, 0.40}},
		{model: "ConE", mrr: []float64{53.1, 16.1, 13.9, 40.0, 50.8, 26.3, 17.5, 15.3, 11.3, 27.2},
			neg:      []float64{5.7, 8.1, 10.8, 3.5, 3.9, 6.4},
			spearman: []float64{0.56, 0.61, 0.60, 0.79, 0.79, 0.74, 0.58, 0.90, 0.79, 0.56, 0.48, 0.85, 0.69},
			pearson:  []float64{0.48, 0.45, 0.49, 0.72, 0.68, 0.52, 0.39, 0.74, 0.66, 0.38, 0.34, 0.69, 0.55}},
		{model: "GammaE", mrr: []float64{55.1, 17.3, 14.2, 41.9, 51.1, 26.9, 18.3, 16.5, 12.5, 28.2},
			hits1:    []float64{51.7, 14.3, 13.7, 31.1, 39.3, 21.3, 14.6, 11.6, 9.3, 22.4},
			neg:      []float64{6.3, 8.7, 11.4, 4.0, 4.5, 6.98},
			spearman: []float64{0.60, 0.67, 0.63, 0.79, 0.81, 0.77, 0.62, 0.87, 0.79, 0.61, 0.53, 0.82, 0.71},
			pearson:  []float64{0.53, 0.51, 0.51, 0.70, 0.69, 0.59, 0.47, 0.71, 0.69, 0.43, 0.42, 0.69, 0.58}},
	},
}

// PaperDatasets are the datasets the paper reports.
var PaperDatasets = []string{"fb15k-237", "fb15k", "nell"}

// Paper returns the paper's published rows for dataset ("fb15k-237",
// "fb15k", "nell"; "nell995" is accepted), labelled "<model> (paper)".
func Paper(dataset string) ([]Row, error) {
	key := strings.ToLower(dataset)
	if key == "nell995" {
		key = "nell"
	}
	rows, ok := paper[key]
	if !ok {
		return nil, fmt.Errorf("the paper reports fb15k-237, fb15k and nell, not %q", dataset)
	}
	var out []Row
	for _, p := range rows {
		r := Row{Name: p.model + " (paper)", Paper: true, MRR: map[string]float64{}, Hits1: map[string]float64{},
			Spearman: map[string]float64{}, Pearson: map[string]float64{}}
		fill(r.MRR, epfoCols, p.mrr, "avg", "epfo")
		fill(r.MRR, negCols, p.neg, "avg", "neg")
		fill(r.Hits1, epfoCols, p.hits1, "avg", "epfo")
		fill(r.Spearman, corrCols, p.spearman, "avg", "avg")
		fill(r.Pearson, corrCols, p.pearson, "avg", "avg")
		out = append(out, r)
	}
	return out, nil
}

// fill sets dst[col] = vals[i], renaming the column avg to avgName.
func fill(dst map[string]float64, cols []string, vals []float64, avg, avgName string) {
	for i, v := range vals {
		c := cols[i]
		if c == avg {
			c = avgName
		}
		dst[c] = v
	}
}
