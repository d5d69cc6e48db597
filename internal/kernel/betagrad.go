package kernel

// BetaGradArgs are the operands of BetaGrad: one candidate entity against
// one query row of BetaE's L1 norm of Beta KLs, d dimensions each.
type BetaGradArgs struct {
	G      float64 // upstream gradient of the row's distance
	Lo, Hi float64 // the regulariser's clamp: the entity gradient passes where Lo ≤ raw+1 ≤ Hi

	// Entity side: the raw table row halves, the clamped α, β and the
	// KL's entity terms.
	RawA, RawB, A, B, PsiA, PsiB, PsiS, E, TriA, TriB, TriS []float64
	// Query side: α, β, lnΓ(α)+lnΓ(β)−lnΓ(α+β) and the digammas.
	QA, QB, Lg, QPsiA, QPsiB, QPsiS []float64
	// Gradients accumulated into: the entity's table row halves and the
	// query's α, β.
	GeA, GeB, GA, GB []float64
}

// BetaGrad accumulates the gradient of G·Σᵢ|KLᵢ| (KL of Beta(entity) ‖
// Beta(query), split as BetaRows) into the entity's and the query's
// gradients. With s = sign(KLᵢ)·G, S = α+β:
//
//	GeA += s·((αp−αq)ψ'(αp) + (Sq−Sp)ψ'(Sp))   where the clamp passes
//	GA  += s·(ψ(αq) − ψ(Sq) − ψ(αp) + ψ(Sp))
//
// and likewise for β.
func BetaGrad(x *BetaGradArgs) {
	defer clearUpper()
	d := len(x.QA)
	for _, s := range [][]float64{x.RawA, x.RawB, x.A, x.B, x.PsiA, x.PsiB, x.PsiS, x.E, x.TriA, x.TriB, x.TriS,
		x.QB, x.Lg, x.QPsiA, x.QPsiB, x.QPsiS, x.GeA, x.GeB, x.GA, x.GB} {
		checkLen("BetaGrad", len(s), d)
	}
	i := 0
	if cur.betaGrad != nil {
		i = cur.betaGrad(x)
	}
	betaGradGo(x, i)
}

// betaGradGo is the specification, from element i on.
func betaGradGo(x *BetaGradArgs, i int) {
	for ; i < len(x.QA); i++ {
		a, b := x.QA[i], x.QB[i]
		kl := x.Lg[i] + x.E[i] - a*x.PsiA[i] - b*x.PsiB[i] + (a+b)*x.PsiS[i]
		sg := x.G * sign64(kl)
		ap, bp := x.A[i], x.B[i]
		ds := (a + b - ap - bp) * x.TriS[i]
		if r := x.RawA[i] + 1; r >= x.Lo && r <= x.Hi {
			x.GeA[i] += sg * ((ap-a)*x.TriA[i] + ds)
		}
		if r := x.RawB[i] + 1; r >= x.Lo && r <= x.Hi {
			x.GeB[i] += sg * ((bp-b)*x.TriB[i] + ds)
		}
		x.GA[i] += sg * (x.QPsiA[i] - x.QPsiS[i] - x.PsiA[i] + x.PsiS[i])
		x.GB[i] += sg * (x.QPsiB[i] - x.QPsiS[i] - x.PsiB[i] + x.PsiS[i])
	}
}

// sign64 is ±1 by the sign of x, and x itself for ±0 and NaN (ad.Sign).
func sign64(x float64) float64 {
	if x > 0 {
		return 1
	}
	if x < 0 {
		return -1
	}
	return x
}
