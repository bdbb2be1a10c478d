"""The explanation methods against independent computations: rollout and flow on a hand-built 3-layer case
(Abnar & Zuidema 2020), integrated gradients' completeness (Sundararajan et al. 2017, §3), occlusion equal
to re-running the model, norm-based attention ‖α f(x)‖ (Kobayashi et al. 2020) against the attention output,
Spearman's ρ against scipy, AER against the training metric."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from models.lessons import explanations as ex

# three layers over three tokens, rows sum to 1 (layer 1 first)
A = np.array(
    [
        [[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.2, 0.3, 0.5]],
        [[0.6, 0.2, 0.2], [0.0, 1.0, 0.0], [0.1, 0.1, 0.8]],
        [[0.3, 0.3, 0.4], [0.5, 0.25, 0.25], [0.0, 0.5, 0.5]],
    ]
)


def test_residual_and_rollout_by_hand() -> None:
    r = [0.5 * a + 0.5 * np.eye(3) for a in A]  # rows already sum to 1: renormalising changes nothing
    assert np.allclose(ex.with_residual(A), r)
    assert np.allclose(ex.rollout(A), r[2] @ r[1] @ r[0])
    assert np.allclose(ex.rollout(A).sum(-1), 1.0)
    assert np.allclose(ex.rollout(A, residual=False), A[2] @ A[1] @ A[0])


def test_flow_matches_an_independent_max_flow() -> None:
    """scipy's integer max-flow on the layered graph equals the plain Edmonds–Karp on the same graph, and on a
    chain where the bottleneck is known."""
    flows = ex.attention_flow(A, query=1)
    cap = ex.flow_graph(A)
    by_hand = [ex.edmonds_karp(cap, j, 3 * 3 + 1) for j in range(3)]
    assert np.allclose(flows, by_hand, atol=1e-6)
    chain = np.zeros((3, 3))
    chain[0, 1], chain[1, 2] = 0.7, 0.4
    assert ex.edmonds_karp(chain, 0, 2) == pytest.approx(0.4)
    # one layer: the flow from j to i is the single edge Ã[i, j]
    one = ex.attention_flow(A[:1], query=2)
    assert np.allclose(one, ex.with_residual(A[:1])[0][2], atol=1e-6)


def test_flow_with_a_final_cross_attention_row() -> None:
    final = np.array([0.2, 0.5, 0.3])
    flows = ex.attention_flow(A, 0, final)
    cap = ex.flow_graph(A, final)
    assert np.allclose(flows, [ex.edmonds_karp(cap, j, cap.shape[0] - 1) for j in range(3)], atol=1e-6)


def test_sink_split() -> None:
    share, rest = ex.sink_split(np.array([0.6, 0.3, 0.1]))
    assert share == pytest.approx(0.6)
    assert np.isnan(rest[0]) and np.allclose(rest[1:], [0.75, 0.25])


def test_spearman_against_scipy_and_aopc() -> None:
    from scipy.stats import spearmanr

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=12), rng.normal(size=12)
    b[3] = b[5]  # a tie
    assert ex.spearman(a, b) == pytest.approx(spearmanr(a, b).statistic)
    assert ex.aopc(np.array([0.9, 0.5, 0.3])) == pytest.approx(((0.9 - 0.5) + (0.9 - 0.3)) / 2)


def test_aer_is_the_training_metric() -> None:
    from models.training.metrics import alignment_error_rate

    pred = [{(0, 0), (1, 2)}, {(2, 1)}]
    gold = [{(0, 0), (1, 1)}, {(2, 1), (0, 0)}]
    assert ex.alignment_error_rate(pred, gold) == pytest.approx(alignment_error_rate(pred, gold))
    assert ex.aligned_links(np.array([[0.1, 0.8, 0.1], [0.5, 0.2, 0.3]]), 2) == {(1, 0), (0, 1)}


def test_gauss_legendre_integrates_polynomials() -> None:
    nodes, weights = ex.gauss_legendre(4)
    assert weights.sum() == pytest.approx(1.0)
    assert (weights * nodes**7).sum() == pytest.approx(1 / 8)


class _Quadratic(ex.Subject):
    """F(x) = Σ_i w_i Σ_d x_id² + Σ_i v·x_i: IG's attribution of token i is exactly w_i‖x_i‖² + v·x_i."""

    family = "test"

    def __init__(self) -> None:
        gen = torch.Generator().manual_seed(0)
        self.x = torch.randn(4, 3, generator=gen, dtype=torch.float64)
        self.w = torch.tensor([0.5, -1.0, 2.0, 0.1], dtype=torch.float64)
        self.v = torch.tensor([0.3, -0.2, 0.1], dtype=torch.float64)
        self.tokens = ["a", "b", "c", "d"]
        self.removable = np.ones(4, dtype=bool)

    def embeddings(self) -> torch.Tensor:
        return self.x

    def logprob_embedded(self, emb: torch.Tensor) -> torch.Tensor:
        return (self.w[:, None] * emb**2).sum((1, 2)) + (emb @ self.v).sum(1)


class _Wavy(ex.Subject):
    """F(x) = Σ_i sin(w_i · x_i): separable, so IG's attribution of token i is exactly sin(w_i · x_i) −
    sin(w_i · x′_i) (each token's path integral is its own term), and the integrand oscillates."""

    family = "test"

    def __init__(self) -> None:
        gen = torch.Generator().manual_seed(1)
        self.x = torch.randn(5, 4, generator=gen, dtype=torch.float64)
        self.w = 3.0 * torch.randn(5, 4, generator=gen, dtype=torch.float64)
        self.tokens = list("abcde")
        self.removable = np.ones(5, dtype=bool)

    def embeddings(self) -> torch.Tensor:
        return self.x

    def baseline(self) -> torch.Tensor:
        return 0.1 * self.x.flip(0)

    def logprob_embedded(self, emb: torch.Tensor) -> torch.Tensor:
        return torch.sin((self.w * emb).sum(-1)).sum(-1)


def test_trapezoid_refines_until_complete() -> None:
    """Halving the intervals that miss their own F(b) − F(a) most stops once completeness holds; the
    attributions then match the closed form per token, the ends are F(x) and F(x′), and the cap is kept."""
    s = _Wavy()
    exact = (torch.sin((s.w * s.x).sum(-1)) - torch.sin((s.w * s.baseline()).sum(-1))).numpy()
    coarse = ex.integrated_gradients(s, 4, "trapezoid")
    assert coarse.steps == 4 and coarse.relative_gap > 0.01
    fine = ex.integrated_gradients(s, 4, "trapezoid", tolerance=0.001)
    assert fine.steps > 4 and fine.relative_gap <= 0.001
    assert np.allclose(fine.attributions, exact, atol=0.01 * np.abs(exact).max())
    assert fine.f_input == pytest.approx(float(s.logprob_embedded(s.x[None])[0]))
    assert fine.f_baseline == pytest.approx(float(s.logprob_embedded(s.baseline()[None])[0]))
    capped = ex.integrated_gradients(s, 4, "trapezoid", tolerance=1e-12, max_steps=16)
    assert capped.steps == 16


def test_integrated_gradients_exact_on_a_quadratic() -> None:
    s = _Quadratic()
    ig = ex.integrated_gradients(s, steps=4)
    exact = (s.w * (s.x**2).sum(1) + s.x @ s.v).numpy()
    assert np.allclose(ig.attributions, exact)
    assert ig.gap < 1e-9
    riemann = ex.integrated_gradients(s, steps=200, rule="riemann")
    assert riemann.relative_gap < 0.01  # the right Riemann sum converges as 1/m
    trapezoid = ex.integrated_gradients(s, steps=3, rule="trapezoid")  # a linear integrand: exact
    assert np.allclose(trapezoid.attributions, exact)


@pytest.fixture(scope="module")
def tf_subject():
    from models.checkpoints import load_transformer

    return ex.translation_subject(load_transformer("tf-en-fr"), "the red car is not big .", 2)


@pytest.fixture(scope="module")
def s2s_subject():
    from models.checkpoints import load_seq2seq

    return ex.translation_subject(load_seq2seq("s2s-bahdanau"), "the red car is not big .", 3)


@pytest.fixture(scope="module")
def mlm_subject():
    from models.checkpoints import load_bert

    return ex.mlm_subject(load_bert("minilm-mlm"), "I brush my [MASK] every morning.")


def _rerun_without(subject, j: int) -> float:
    """log p(target) from a fresh run of the model on the input with token j left out (ids, not embeddings)."""
    keep = [i for i in range(len(subject.ids)) if i != j]
    ids = torch.tensor([[subject.ids[i] for i in keep]])
    with torch.no_grad():
        if isinstance(subject, ex.TransformerSubject):
            logits = subject.model(ids, subject.tgt_in)[0, -1]
        elif isinstance(subject, ex.Seq2SeqSubject):
            logits_all, _ = subject.model(ids, torch.tensor([len(keep)]), torch.tensor([subject.prefix]))
            logits = logits_all[0, -1]
        else:
            hidden, _ = subject.model.encode(ids, torch.zeros_like(ids))
            logits = subject.model.mlm_logits(hidden[0, keep.index(subject.query)])
    return float(torch.log_softmax(logits.float(), -1)[subject.target_id])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tf_subject", "s2s_subject", "mlm_subject"])
def test_occlusion_is_rerunning_the_model(name, request) -> None:
    subject = request.getfixturevalue(name)
    positions = [int(i) for i in np.nonzero(subject.removable)[0]]
    fast = subject.logprob_without([[j] for j in positions])
    assert np.allclose(fast, [_rerun_without(subject, j) for j in positions], atol=1e-4)


@pytest.mark.slow
def test_norm_based_attention_sums_to_the_attention_output(tf_subject, mlm_subject) -> None:
    """Σ_j α_ij f(x_j) + b_O is what the attention module returned (Kobayashi et al. 2020, eq. 5–6): the
    vectors whose norms the method reports are checked against the model's own output."""
    m = mlm_subject.model
    mod = m.encoder.layers[0].self_attn
    ids = torch.tensor([mlm_subject.ids])
    with torch.no_grad(), ex._Hooks([mod]) as hooks:
        m.encode(ids, torch.zeros_like(ids))
        x = hooks.inputs[0][2][0]
        out, weights = hooks.outputs[0]
        q = mlm_subject.query
        h, dk = mod.n_heads, mod.d_k
        v = mod.w_v(x).view(-1, h, dk).transpose(0, 1)
        f = v @ mod.w_o.weight.view(mod.d_model, h, dk).permute(1, 2, 0)
        vectors = (weights[0][:, q, :, None] * f).sum(0)
        assert torch.allclose(vectors.sum(0) + mod.w_o.bias, out[0, q], atol=1e-4)
        norms = ex._norms_mha(mod, x, weights[0], q)
        assert torch.allclose(norms, vectors.norm(dim=-1))
    rec = mlm_subject.attention()
    assert rec.norms.shape == rec.rows.shape[::2]


@pytest.mark.slow
def test_explain_on_the_transformer(tf_subject) -> None:
    e = ex.explain(tf_subject)
    assert e.scores.shape == (len(ex.METHODS), len(e.tokens))
    assert np.allclose(e.row("attn_last"), e.row("attn_last").clip(0, 1))
    assert e.ig_relative_gap < 0.01  # completeness at the documented steps
    assert e.spearman[ex.METHODS.index("occlusion")] == pytest.approx(1.0)
    assert np.allclose(e.erasure[:, 0], np.exp(e.log_prob))
    assert np.isclose(e.row("rollout").sum(), 1.0)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tf_subject", "s2s_subject", "mlm_subject"])
def test_integrated_gradients_complete_on_every_small_model(name, request) -> None:
    """|Σ IG − (F(x) − F(x′))| ≤ 1% of |F(x) − F(x′)| at the step count explain() reports, and F(x) is the
    model's own log p(output) from a fresh run on the token ids."""
    subject = request.getfixturevalue(name)
    e = ex.explain(subject, erase_k=0)
    assert e.ig_relative_gap <= ex.IG_TOLERANCE and e.ig_steps <= ex.IG_MAX_STEPS
    j = int(np.nonzero(subject.removable)[0][0])
    assert e.ig_f_input - e.row("occlusion")[j] == pytest.approx(_rerun_without(subject, j), abs=1e-4)


def _tiny_llm():
    from tests.test_llm import VOCAB, _tokenizer
    from transformers import LlamaConfig, LlamaForCausalLM

    from models.inference.llm import LLM

    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(VOCAB),
        hidden_size=48,
        intermediate_size=64,
        num_hidden_layers=3,
        num_attention_heads=6,
        num_key_value_heads=2,
        max_position_embeddings=128,
        rope_theta=500.0,
        bos_token_id=0,
        eos_token_id=1,
        attn_implementation="eager",
    )
    return LLM.wrap(LlamaForCausalLM(config), _tokenizer(), "tiny")


def test_norm_based_vectors_on_the_llama_path() -> None:
    """On a tiny Llama (grouped key/value heads, no biases): Σ_j of the vectors whose norms the LLM subject
    reports is the attention module's own output at the last position, and the record's norms are theirs."""
    llm = _tiny_llm()
    subject = ex.LLMSubject(llm, [3, 9, 4, 17, 5, 8])
    attns = [layer.self_attn for layer in llm.model.model.layers]
    q = len(subject.ids) - 1
    with torch.no_grad(), ex._Hooks(attns) as hooks:
        out = llm.model.model(input_ids=torch.tensor([subject.ids]), use_cache=False, output_attentions=True)
    rec = subject.attention()
    for i, mod in enumerate(attns):
        x = hooks.kwargs[i]["hidden_states"][0]
        vectors = ex.llama_weighted_values(mod, x, out.attentions[i][0], q)
        assert torch.allclose(vectors.sum(0).float(), hooks.outputs[i][0][0, q], atol=1e-5)
        assert np.allclose(rec.norms[i], vectors.detach().norm(dim=-1).numpy())
    assert np.allclose(rec.rows[:, :, :].sum(-1), 1.0, atol=1e-5)


def test_llm_baseline_keeps_the_first_token_and_ig_is_complete() -> None:
    llm = _tiny_llm()
    subject = ex.LLMSubject(llm, [3, 9, 4, 17, 5, 8])
    x, base = subject.embeddings(), subject.baseline()
    pad = llm.model.get_input_embeddings().weight[subject.pad_id]
    assert subject.pad_id == 1  # the tokenizer has no padding token: its end-of-text one
    assert torch.equal(base[0], x[0]) and torch.equal(base[1:], pad.detach().expand(5, -1))
    ig = ex.integrated_gradients(subject, 16, "trapezoid", tolerance=0.01)
    assert ig.relative_gap <= 0.01 and ig.attributions[0] == 0.0
    with torch.no_grad():
        logits = llm.model(input_ids=torch.tensor([subject.ids])).logits[0, -1]
    assert ig.f_input == pytest.approx(float(torch.log_softmax(logits, -1)[subject.target_id]), abs=1e-5)


def test_llm_occlusion_from_the_cached_prefix_is_rerunning_the_model() -> None:
    """LLMSubject.logprob_without starts each batch from the full run's keys and values cut before its first
    removed token: the numbers of re-running each shortened input, for single tokens, sets of several, sets
    that end the input and the first token."""
    llm = _tiny_llm()
    subject = ex.LLMSubject(llm, [3, 9, 4, 17, 5, 8, 22, 6, 40])
    removed = [[j] for j in range(9)] + [[1, 4], [0, 8], [7, 8], [2, 3, 6], [5, 6, 7, 8], [4, 1]]
    fast = subject.logprob_without(removed, batch=4)
    for drop, value in zip(removed, fast):
        kept = [t for i, t in enumerate(subject.ids) if i not in drop]
        with torch.no_grad():
            logits = llm.model(input_ids=torch.tensor([kept])).logits[0, -1]
        assert value == pytest.approx(float(torch.log_softmax(logits, -1)[subject.target_id]), abs=1e-5), drop
    with pytest.raises(ValueError):
        subject.logprob_without([list(range(9))])


def _real_llm_ready() -> bool:
    from models.inference.llm import is_converted

    return is_converted()


@pytest.mark.slow
@pytest.mark.skipif(not _real_llm_ready(), reason="the real LLM is not converted (python -m models.prepare_llm)")
def test_integrated_gradients_complete_on_the_real_llm() -> None:
    from models.inference.llm import load_llm

    subject = ex.llm_subject(load_llm(), "The capital of France is Paris. The capital of Italy is")
    ig = ex.integrated_gradients(subject, ex.IG_START["llm"], "trapezoid", tolerance=ex.IG_TOLERANCE)
    assert ig.relative_gap <= ex.IG_TOLERANCE, (ig.steps, ig.relative_gap)
    with torch.no_grad():
        logits = subject.model(input_ids=torch.tensor([subject.ids])).logits[0, -1]
    assert ig.f_input == pytest.approx(float(torch.log_softmax(logits.float(), -1)[subject.target_id]), abs=1e-4)


# ---------------------------------------------------------------------------- Jain & Wallace 2019, §4.2


def test_jensen_shannon_and_total_variation() -> None:
    from scipy.spatial.distance import jensenshannon

    p, q = np.array([0.7, 0.2, 0.1, 0.0]), np.array([0.1, 0.1, 0.3, 0.5])
    assert ex.js_divergence(p, q) == pytest.approx(jensenshannon(p, q) ** 2)  # scipy: the square root, base e
    assert ex.js_divergence(p, p) == pytest.approx(0.0)
    assert ex.js_divergence(np.array([1.0, 0]), np.array([0, 1.0])) == pytest.approx(np.log(2))
    assert ex.total_variation(p, q) == pytest.approx(0.5 * (0.6 + 0.1 + 0.2 + 0.5))
    assert float(ex._js_torch(torch.tensor(p), torch.tensor(q))) == pytest.approx(ex.js_divergence(p, q))


@pytest.mark.slow
def test_attention_swap_on_the_rnn(s2s_subject) -> None:
    """The original row is the model's attention and its output the model's own (a fresh full forward); the
    shown row is a permutation; every JSD/TVD recomputes from the rows and from rerunning the step; the
    adversary keeps the output within ε."""
    sw = ex.attention_swap(s2s_subject, permutations=20, steps=40)
    alpha = s2s_subject.attention().rows[0, 0]
    assert np.allclose(sw.weights[0], alpha, atol=1e-6)
    assert np.allclose(sw.weights[1], alpha[sw.permutation], atol=1e-6)
    assert sorted(sw.permutation) == list(range(len(alpha)))
    assert np.allclose(sw.weights.sum(-1), 1.0, atol=1e-5)
    ids = torch.tensor([s2s_subject.ids])
    with torch.no_grad():
        logits, _ = s2s_subject.model(ids, torch.tensor([len(s2s_subject.ids)]), torch.tensor([s2s_subject.prefix]))
    p_model = torch.softmax(logits[0, -1].float(), -1).numpy()
    probs = ex.step_probabilities(s2s_subject)
    with torch.no_grad():
        dists = probs(torch.tensor(sw.weights, dtype=torch.float32)).numpy()
    assert np.allclose(dists[0], p_model, atol=1e-5)
    assert sw.probs[0] == pytest.approx(p_model.max(), abs=1e-5)
    for i in range(3):
        assert sw.jsd[i] == pytest.approx(ex.js_divergence(sw.weights[0], sw.weights[i]), abs=1e-9)
        assert sw.tvd[i] == pytest.approx(ex.total_variation(dists[0], dists[i]), abs=1e-4)
    assert sw.tvd[2] <= sw.epsilon + 1e-4 and sw.jsd[0] == 0.0
