#!/usr/bin/python3
# tests/nn/make_module_cases.py - PyTorch 1.13's reference cases for the built-in nn modules.
"""Writes tests/data/reference/nn_modules.json for tests/nn/modules_test.cpp.

For each case: repr(module), the state_dict (keys, shapes and the values the
test loads: deterministic, drawn after torch.manual_seed), the inputs, the
outputs of one forward (tuples flattened, None left out) in the given mode,
and the state_dict after that forward (running statistics). Modules are
converted to float64 unless the case keeps its dtype.

Run with /usr/bin/python3 (PyTorch 1.13):  /usr/bin/python3 tests/nn/make_module_cases.py
"""
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "reference", "nn_modules.json")


def rn(*shape):
    return torch.randn(*shape, dtype=torch.float64)


def ints(values):
    return torch.tensor(values, dtype=torch.int64)


def floats(values):
    return torch.tensor(values, dtype=torch.float64)


def enc(t):
    t = t.detach()
    dtype = "int64" if t.dtype in (torch.int64, torch.int32) else "float64"
    if t.dtype == torch.bool:
        dtype = "bool"
    vals = t.reshape(-1).tolist()
    if dtype == "bool":
        vals = [1 if v else 0 for v in vals]
    return {"shape": list(t.shape), "dtype": dtype, "values": vals}


def flat(out):
    if out is None:
        return []
    if isinstance(out, torch.Tensor):
        return [out]
    res = []
    for o in out:
        res += flat(o)
    return res


# name, constructor, inputs (a function of nothing, drawn after the parameters), options
CASES = []


def case(name, make, inputs=lambda: [], mode="eval", keep_dtype=False, forward=True, call=None):
    CASES.append(dict(name=name, make=make, inputs=inputs, mode=mode, keep_dtype=keep_dtype, forward=forward,
                      call=call or (lambda m, *xs: m(*xs))))


def call_with_state(m, x, h, c):
    return m(x, (h, c))


# --- containers ---------------------------------------------------------------------
case("sequential", lambda: nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)), lambda: [rn(2, 4)])
case("sequential_nested", lambda: nn.Sequential(nn.Linear(2, 3), nn.Sequential(nn.Tanh(), nn.Linear(3, 1))),
     lambda: [rn(3, 2)])
case("modulelist", lambda: nn.ModuleList([nn.Linear(2, 2), nn.ReLU(), nn.Conv1d(1, 2, 3)]), forward=False)
case("moduledict", lambda: nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.ReLU()}), forward=False)
case("parameterlist", lambda: nn.ParameterList([nn.Parameter(torch.ones(3, 4)), nn.Parameter(torch.ones(2))]),
     keep_dtype=True, forward=False)
case("parameterdict", lambda: nn.ParameterDict({"w": nn.Parameter(torch.ones(3, 4)), "b": nn.Parameter(torch.ones(2))}),
     keep_dtype=True, forward=False)

# --- linear, flatten, dropout, embedding -------------------------------------------------
case("linear", lambda: nn.Linear(4, 3), lambda: [rn(2, 4)])
case("linear_nobias", lambda: nn.Linear(4, 3, bias=False), lambda: [rn(5, 4)])
case("bilinear", lambda: nn.Bilinear(2, 3, 4), lambda: [rn(5, 2), rn(5, 3)])
case("identity", lambda: nn.Identity(), lambda: [rn(2, 3)])
case("flatten", lambda: nn.Flatten(), lambda: [rn(2, 3, 4)])
case("flatten_0_1", lambda: nn.Flatten(0, 1), lambda: [rn(2, 3, 4)])
case("unflatten", lambda: nn.Unflatten(1, (2, 3)), lambda: [rn(4, 6)])
case("dropout_eval", lambda: nn.Dropout(0.3), lambda: [rn(2, 3)])
case("dropout2d_eval", lambda: nn.Dropout2d(p=0.2), lambda: [rn(1, 2, 2, 2)])
case("alphadropout_eval", lambda: nn.AlphaDropout(0.25), lambda: [rn(2, 3)])
case("embedding", lambda: nn.Embedding(5, 3, padding_idx=0), lambda: [ints([[0, 2, 4], [1, 1, 3]])])
case("embedding_maxnorm", lambda: nn.Embedding(5, 3, max_norm=1.0, norm_type=1.5), lambda: [ints([1, 2, 1])])
case("embeddingbag_sum", lambda: nn.EmbeddingBag(6, 2, mode="sum"),
     lambda: [ints([1, 2, 4, 5, 4, 3]), ints([0, 2])])
case("embeddingbag_mean", lambda: nn.EmbeddingBag(6, 2, padding_idx=2), lambda: [ints([[1, 2], [3, 4]])])

# --- convolution and pooling ----------------------------------------------------------------
case("conv1d", lambda: nn.Conv1d(2, 4, 3, stride=2, padding=1), lambda: [rn(2, 2, 9)])
case("conv1d_same_reflect", lambda: nn.Conv1d(2, 4, 3, padding="same", padding_mode="reflect", dilation=2),
     lambda: [rn(1, 2, 8)])
case("conv2d", lambda: nn.Conv2d(2, 4, (3, 2), stride=(2, 1), padding=(1, 0), groups=2, bias=False),
     lambda: [rn(2, 2, 6, 5)])
case("conv2d_same", lambda: nn.Conv2d(3, 2, 3, padding="same"), lambda: [rn(1, 3, 5, 5)])
case("conv2d_valid", lambda: nn.Conv2d(1, 2, 2, padding="valid"), lambda: [rn(1, 1, 3, 3)])
case("conv2d_circular", lambda: nn.Conv2d(1, 2, 3, padding=1, padding_mode="circular"), lambda: [rn(1, 1, 4, 4)])
case("conv3d", lambda: nn.Conv3d(2, 2, 2, padding=1), lambda: [rn(1, 2, 3, 3, 3)])
case("convt1d", lambda: nn.ConvTranspose1d(2, 3, 3, stride=2, padding=1, output_padding=1), lambda: [rn(2, 2, 5)])
case("convt2d", lambda: nn.ConvTranspose2d(2, 4, 3, stride=2, groups=2, bias=False), lambda: [rn(1, 2, 3, 3)])
case("convt3d", lambda: nn.ConvTranspose3d(1, 2, 2, stride=2, dilation=1), lambda: [rn(1, 1, 2, 2, 2)])
case("maxpool1d", lambda: nn.MaxPool1d(3, stride=2, padding=1), lambda: [rn(2, 3, 8)])
case("maxpool2d", lambda: nn.MaxPool2d(2), lambda: [rn(1, 2, 4, 5)])
case("maxpool2d_tuple", lambda: nn.MaxPool2d((3, 2), stride=(2, 1), padding=1, ceil_mode=True),
     lambda: [rn(1, 1, 5, 5)])
case("avgpool1d", lambda: nn.AvgPool1d(3, stride=2, padding=1, count_include_pad=False), lambda: [rn(2, 2, 7)])
case("avgpool2d", lambda: nn.AvgPool2d((2, 3), stride=1, padding=1), lambda: [rn(1, 2, 4, 4)])
case("adaptiveavgpool1d", lambda: nn.AdaptiveAvgPool1d(3), lambda: [rn(2, 2, 7)])
case("adaptiveavgpool2d", lambda: nn.AdaptiveAvgPool2d((2, None)), lambda: [rn(1, 2, 5, 4)])
case("adaptivemaxpool2d", lambda: nn.AdaptiveMaxPool2d(2), lambda: [rn(1, 2, 5, 5)])

# --- padding, shuffles, fold, distances --------------------------------------------------------
case("zeropad2d", lambda: nn.ZeroPad2d((1, 2, 0, 1)), lambda: [rn(1, 1, 2, 3)])
case("constantpad1d", lambda: nn.ConstantPad1d(2, 3.5), lambda: [rn(1, 2, 3)])
case("reflectionpad2d", lambda: nn.ReflectionPad2d((1, 0, 2, 1)), lambda: [rn(1, 1, 3, 3)])
case("replicationpad3d", lambda: nn.ReplicationPad3d(1), lambda: [rn(1, 1, 2, 2, 2)])
case("pixelshuffle", lambda: nn.PixelShuffle(2), lambda: [rn(1, 8, 2, 3)])
case("pixelunshuffle", lambda: nn.PixelUnshuffle(2), lambda: [rn(1, 1, 4, 6)])
case("channelshuffle", lambda: nn.ChannelShuffle(2), lambda: [rn(1, 4, 2, 2)])
case("unfold", lambda: nn.Unfold(2, padding=1), lambda: [rn(1, 2, 3, 3)])
case("fold", lambda: nn.Fold((4, 5), 2), lambda: [rn(1, 8, 12)])
case("cosinesimilarity", lambda: nn.CosineSimilarity(dim=0), lambda: [rn(3, 4), rn(3, 4)])
case("pairwisedistance", lambda: nn.PairwiseDistance(p=1.0, keepdim=True), lambda: [rn(3, 4), rn(3, 4)])
case("upsample_nearest", lambda: nn.Upsample(scale_factor=2), lambda: [rn(1, 1, 2, 3)])
case("upsample_bilinear_size", lambda: nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
     lambda: [rn(1, 2, 2, 2)])
case("upsample_scale_tuple", lambda: nn.Upsample(scale_factor=(2, 1.5), mode="bilinear"), lambda: [rn(1, 1, 2, 4)])
case("upsamplingnearest2d", lambda: nn.UpsamplingNearest2d(scale_factor=2), lambda: [rn(1, 1, 2, 2)])
case("upsamplingbilinear2d", lambda: nn.UpsamplingBilinear2d(size=4), lambda: [rn(1, 1, 2, 3)])
case("lppool1d", lambda: nn.LPPool1d(2, 3), lambda: [rn(1, 2, 7)])
case("lppool2d", lambda: nn.LPPool2d(1.5, (2, 2), stride=1), lambda: [rn(1, 1, 3, 3).abs()])

# --- normalisation ---------------------------------------------------------------------------
case("batchnorm1d_train", lambda: nn.BatchNorm1d(3), lambda: [rn(4, 3)], mode="train")
case("batchnorm1d_eval", lambda: nn.BatchNorm1d(3), lambda: [rn(4, 3, 2)])
case("batchnorm2d_cumulative", lambda: nn.BatchNorm2d(2, momentum=None), lambda: [rn(3, 2, 2, 2)], mode="train")
case("batchnorm3d_noaffine", lambda: nn.BatchNorm3d(2, affine=False, track_running_stats=False),
     lambda: [rn(2, 2, 2, 2, 2)], mode="train")
case("layernorm", lambda: nn.LayerNorm([3, 4]), lambda: [rn(2, 3, 4)])
case("layernorm_noaffine", lambda: nn.LayerNorm(4, eps=1e-3, elementwise_affine=False), lambda: [rn(3, 4)])
case("groupnorm", lambda: nn.GroupNorm(2, 4), lambda: [rn(2, 4, 3)])
case("instancenorm1d", lambda: nn.InstanceNorm1d(3), lambda: [rn(2, 3, 5)], mode="train")
case("instancenorm2d_track", lambda: nn.InstanceNorm2d(2, affine=True, track_running_stats=True),
     lambda: [rn(2, 2, 3, 3)], mode="train")
case("instancenorm1d_unbatched_eval", lambda: nn.InstanceNorm1d(3, track_running_stats=True), lambda: [rn(3, 5)])
case("localresponsenorm", lambda: nn.LocalResponseNorm(2), lambda: [rn(1, 4, 3)])

# --- activations ------------------------------------------------------------------------------
act = lambda: [rn(2, 5) * 2]
case("relu", lambda: nn.ReLU(), act)
case("relu6", lambda: nn.ReLU6(), lambda: [rn(2, 5) * 5])
case("selu", lambda: nn.SELU(), act)
case("silu", lambda: nn.SiLU(), act)
case("mish", lambda: nn.Mish(), act)
case("hardswish", lambda: nn.Hardswish(), lambda: [rn(2, 5) * 4])
case("hardsigmoid", lambda: nn.Hardsigmoid(), lambda: [rn(2, 5) * 4])
case("leakyrelu", lambda: nn.LeakyReLU(0.2), act)
case("elu", lambda: nn.ELU(alpha=0.5), act)
case("celu", lambda: nn.CELU(alpha=2.0), act)
case("rrelu_eval", lambda: nn.RReLU(0.1, 0.3), act)
case("hardtanh", lambda: nn.Hardtanh(-0.5, 2.0), act)
case("gelu", lambda: nn.GELU(), act)
case("gelu_tanh", lambda: nn.GELU(approximate="tanh"), act)
case("softplus", lambda: nn.Softplus(beta=2, threshold=1), act)
case("softshrink", lambda: nn.Softshrink(0.3), act)
case("hardshrink", lambda: nn.Hardshrink(0.7), act)
case("glu", lambda: nn.GLU(dim=1), lambda: [rn(2, 4)])
case("softmax", lambda: nn.Softmax(dim=1), act)
case("logsoftmax", lambda: nn.LogSoftmax(dim=0), act)
case("softmin", lambda: nn.Softmin(dim=-1), act)
case("sigmoid", lambda: nn.Sigmoid(), act)
case("tanh", lambda: nn.Tanh(), act)
case("softsign", lambda: nn.Softsign(), act)
case("tanhshrink", lambda: nn.Tanhshrink(), act)
case("logsigmoid", lambda: nn.LogSigmoid(), act)
case("softmax2d", lambda: nn.Softmax2d(), lambda: [rn(1, 3, 2, 2)])
case("threshold", lambda: nn.Threshold(0.1, 20), act)
case("prelu", lambda: nn.PReLU(), act)
case("prelu5", lambda: nn.PReLU(5, init=0.1), act)

# --- losses ----------------------------------------------------------------------------------------
pair = lambda: [rn(3, 4), rn(3, 4)]
case("l1loss", lambda: nn.L1Loss(), pair)
case("mseloss_sum", lambda: nn.MSELoss(reduction="sum"), pair)
case("huberloss", lambda: nn.HuberLoss(delta=0.5), pair)
case("smoothl1loss_none", lambda: nn.SmoothL1Loss(reduction="none", beta=0.5), pair)
case("crossentropyloss", lambda: nn.CrossEntropyLoss(weight=torch.ones(3), label_smoothing=0.1),
     lambda: [rn(4, 3), ints([0, 2, 1, 2])])
case("nllloss", lambda: nn.NLLLoss(ignore_index=1), lambda: [F.log_softmax(rn(4, 3), 1), ints([0, 1, 2, 1])])
case("bceloss", lambda: nn.BCELoss(), lambda: [torch.sigmoid(rn(3, 2)), torch.rand(3, 2, dtype=torch.float64)])
case("bcewithlogitsloss", lambda: nn.BCEWithLogitsLoss(pos_weight=torch.ones(2)),
     lambda: [rn(3, 2), torch.rand(3, 2, dtype=torch.float64)])
case("kldivloss", lambda: nn.KLDivLoss(reduction="batchmean"),
     lambda: [F.log_softmax(rn(3, 4), 1), F.softmax(rn(3, 4), 1)])
case("marginrankingloss", lambda: nn.MarginRankingLoss(margin=0.1), lambda: [rn(4), rn(4), floats([1, -1, 1, -1])])
case("hingeembeddingloss", lambda: nn.HingeEmbeddingLoss(margin=0.5), lambda: [rn(4), floats([1, -1, -1, 1])])
case("cosineembeddingloss", lambda: nn.CosineEmbeddingLoss(margin=0.2),
     lambda: [rn(3, 4), rn(3, 4), floats([1, -1, 1])])
case("softmarginloss", lambda: nn.SoftMarginLoss(), lambda: [rn(4), floats([1, -1, 1, 1])])
case("multilabelmarginloss", lambda: nn.MultiLabelMarginLoss(),
     lambda: [rn(2, 4), ints([[3, 0, -1, 1], [1, 2, 3, -1]])])
case("multilabelsoftmarginloss", lambda: nn.MultiLabelSoftMarginLoss(),
     lambda: [rn(2, 3), floats([[1, 0, 1], [0, 1, 1]])])
case("multimarginloss", lambda: nn.MultiMarginLoss(p=2, margin=0.5), lambda: [rn(3, 4), ints([0, 3, 1])])
case("tripletmarginloss", lambda: nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True),
     lambda: [rn(3, 4), rn(3, 4), rn(3, 4)])
case("poissonnllloss", lambda: nn.PoissonNLLLoss(full=True),
     lambda: [rn(5), torch.rand(5, dtype=torch.float64) * 5])
case("gaussiannllloss", lambda: nn.GaussianNLLLoss(full=True),
     lambda: [rn(4, 2), rn(4, 2), torch.rand(4, 2, dtype=torch.float64) + 0.1])
case("ctcloss", lambda: nn.CTCLoss(),
     lambda: [F.log_softmax(rn(6, 2, 4), 2), ints([[1, 2, 2], [1, 3, 0]]), ints([6, 5]), ints([3, 2])])

# --- recurrent and attention (the C++ test skips names it does not know) -------------------------
case("rnn_tanh", lambda: nn.RNN(3, 4), lambda: [rn(5, 2, 3)])
case("rnn_relu_2l_bi_bf", lambda: nn.RNN(3, 4, num_layers=2, nonlinearity="relu", bidirectional=True,
                                         batch_first=True), lambda: [rn(2, 5, 3), rn(4, 2, 4)])
case("lstm", lambda: nn.LSTM(3, 4), lambda: [rn(5, 2, 3)])
case("lstm_2l_bi_nobias", lambda: nn.LSTM(3, 4, num_layers=2, bidirectional=True, bias=False, batch_first=True),
     lambda: [rn(2, 5, 3), rn(4, 2, 4), rn(4, 2, 4)], call=call_with_state)
case("lstm_proj", lambda: nn.LSTM(3, 4, proj_size=2), lambda: [rn(5, 2, 3)])
case("lstm_unbatched", lambda: nn.LSTM(3, 4, num_layers=2), lambda: [rn(5, 3)])
case("gru", lambda: nn.GRU(3, 4), lambda: [rn(5, 2, 3)])
case("gru_2l_bi", lambda: nn.GRU(3, 4, num_layers=2, bidirectional=True), lambda: [rn(5, 2, 3), rn(4, 2, 4)])
case("rnncell", lambda: nn.RNNCell(3, 4), lambda: [rn(2, 3), rn(2, 4)])
case("rnncell_relu", lambda: nn.RNNCell(3, 4, bias=False, nonlinearity="relu"), lambda: [rn(2, 3)])
case("lstmcell", lambda: nn.LSTMCell(3, 4), lambda: [rn(2, 3), rn(2, 4), rn(2, 4)], call=call_with_state)
case("grucell", lambda: nn.GRUCell(3, 4), lambda: [rn(2, 3), rn(2, 4)])
case("grucell_unbatched", lambda: nn.GRUCell(3, 4), lambda: [rn(3)])
case("mha", lambda: nn.MultiheadAttention(4, 2), lambda: [rn(3, 2, 4), rn(5, 2, 4), rn(5, 2, 4)])
case("mha_kdim_bf", lambda: nn.MultiheadAttention(4, 2, kdim=3, vdim=5, batch_first=True),
     lambda: [rn(2, 3, 4), rn(2, 5, 3), rn(2, 5, 5)])
case("encoder_layer", lambda: nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0), lambda: [rn(3, 2, 4)])
case("encoder_layer_gelu_nf_bf", lambda: nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, activation="gelu",
                                                                    norm_first=True, batch_first=True),
     lambda: [rn(2, 3, 4)])
case("transformer_encoder", lambda: nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0), 2,
                                                           norm=nn.LayerNorm(4)), lambda: [rn(3, 2, 4)])
case("transformer_decoder", lambda: nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0), 2),
     lambda: [rn(3, 2, 4), rn(5, 2, 4)])
case("transformer_masked", lambda: nn.Transformer(4, 2, 1, 1, 8, dropout=0.0, batch_first=True),
     lambda: [rn(2, 5, 4), rn(2, 3, 4)],
     call=lambda m, s, t: m(s, t, tgt_mask=nn.Transformer.generate_square_subsequent_mask(3).double()))
case("decoder_layer", lambda: nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0), lambda: [rn(3, 2, 4), rn(5, 2, 4)])


def main():
    out = []
    for i, c in enumerate(CASES):
        torch.manual_seed(100 + i)
        m = c["make"]()
        if not c["keep_dtype"]:
            m = m.double()
        # Deterministic values for every floating tensor; counts stay integral.
        with torch.no_grad():
            for key, t in m.state_dict().items():
                if key.endswith("num_batches_tracked"):
                    t.fill_(3)
                elif t.is_floating_point():
                    v = torch.randn(t.shape, dtype=t.dtype) * 0.5
                    if key.endswith("running_var") or key.endswith("pos_weight") or key == "weight" and \
                            isinstance(m, nn.modules.loss._Loss):
                        v = v.abs() + 0.5
                    t.copy_(v)
        state = [dict(key=k, **enc(t)) for k, t in m.state_dict().items()]
        entry = dict(name=c["name"], repr=repr(m), keep_dtype=c["keep_dtype"], mode=c["mode"], state=state)
        if c["forward"]:
            inputs = c["inputs"]()
            m.train(c["mode"] == "train")
            res = c["call"](m, *inputs)
            entry["inputs"] = [enc(t) for t in inputs]
            entry["outputs"] = [enc(t) for t in flat(res)]
            entry["state_after"] = [dict(key=k, **enc(t)) for k, t in m.state_dict().items()]
        out.append(entry)
    with open(OUT, "w") as f:
        json.dump({"generator": "tests/nn/make_module_cases.py", "torch": torch.__version__, "cases": out}, f)
        f.write("\n")
    print("wrote", len(out), "cases to", os.path.relpath(OUT))


if __name__ == "__main__":
    main()
