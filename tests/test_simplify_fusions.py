#!/usr/bin/python3
"""onyx-cli edit --simplify=fusions: BatchNormalization into Conv, ConvTranspose and
Gemm, an Add of a constant into a Conv's bias, a Mul of a constant into a Conv's or a
MatMul's weight; and where none of them may apply."""
import unittest

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from simplify_test import SimplifyCase, constant, float_input, make_model

RNG = np.random.default_rng(44)


def weights(*dims):
    return RNG.normal(0, 0.5, dims).astype(np.float32)


def batch_norm(name, channels, x, y, **attributes):
    """A BatchNormalization node of realistic statistics and its four initializers."""
    stats = {"scale": RNG.uniform(0.5, 1.5, channels), "bias": RNG.normal(0, 1, channels),
             "mean": RNG.normal(0, 1, channels), "var": RNG.uniform(0.2, 3.0, channels)}
    tensors = [numpy_helper.from_array(v.astype(np.float32), f"{name}.{k}") for k, v in stats.items()]
    node = helper.make_node("BatchNormalization", [x] + [t.name for t in tensors], [y], name=name,
                            epsilon=1e-3, **attributes)
    return node, tensors


def values(model, name):
    return {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}[name]


def node_named(model, name):
    return [n for n in model.graph.node if n.name == name][0]


class Fusions(SimplifyCase):
    def fused(self, model, feeds, n_fused, left):
        """Simplifies with fusions alone and checks the count, the nodes left, the
        graph outputs' names and the proof; the simplified model."""
        simplified, report = self.simplify(model, "--simplify=fusions")
        self.assertEqual(self.pass_of(report, "fusions")["nodes_removed"], n_fused)
        self.assertEqual([n.name for n in simplified.graph.node], left)
        self.assertEqual([o.name for o in simplified.graph.output], [o.name for o in model.graph.output])
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, feeds)
        return simplified

    def unchanged(self, model, *extra):
        simplified, report = self.simplify(model, "--simplify=fusions", *extra)
        self.assertEqual(self.pass_of(report, "fusions")["nodes_removed"], 0)
        self.assertEqual(report["verdict"], "unchanged")
        self.assertEqual([n.name for n in simplified.graph.node], [n.name for n in model.graph.node])

    def image(self, *dims):
        return {"x": RNG.normal(0, 1, dims).astype(np.float32)}

    def test_batch_norm_into_conv_makes_its_bias(self):
        norm, stats = batch_norm("bn", 4, "c", "n")
        model = make_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
                            norm, helper.make_node("Relu", ["n"], ["y"], name="relu")],
                           [float_input("x", [1, 3, 6, 6])], [float_input("y", [1, 4, 6, 6])],
                           [numpy_helper.from_array(weights(4, 3, 3, 3), "w")] + stats)
        simplified = self.fused(model, self.image(1, 3, 6, 6), 1, ["conv", "relu"])
        conv = node_named(simplified, "conv")
        # The weight read by the Conv alone is replaced under its own name.
        self.assertEqual(list(conv.input[:2]), ["x", "w"])
        self.assertEqual(len(conv.input), 3)
        self.assertEqual(values(simplified, conv.input[2]).shape, (4,))
        self.assertFalse(np.allclose(values(simplified, "w"), values(model, "w")))
        self.assertEqual(list(conv.output), ["c"])
        self.assertEqual(list(node_named(simplified, "relu").input), ["c"])

    def test_batch_norm_writing_a_graph_output_into_conv_with_a_bias(self):
        norm, stats = batch_norm("bn", 4, "c", "y")
        model = make_model([helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", group=2)],
                           [float_input("x", [2, 4, 5, 5])], [float_input("y", [2, 4, 3, 3])],
                           [numpy_helper.from_array(weights(4, 2, 3, 3), "w"),
                            numpy_helper.from_array(weights(4), "b")] + stats)
        model.graph.node.append(norm)
        simplified = self.fused(model, self.image(2, 4, 5, 5), 1, ["conv"])
        conv = node_named(simplified, "conv")
        self.assertEqual(list(conv.input), ["x", "w", "b"])
        self.assertEqual(list(conv.output), ["y"])

    def test_batch_norm_into_grouped_conv_transpose(self):
        # W is [C, M / group, k, k]: 4 input channels in 2 groups make 2 × 3 outputs.
        norm, stats = batch_norm("bn", 6, "c", "n")
        model = make_model([helper.make_node("ConvTranspose", ["x", "w", "b"], ["c"], name="deconv", group=2,
                                             strides=[2, 2]),
                            norm, helper.make_node("Sigmoid", ["n"], ["y"], name="sigmoid")],
                           [float_input("x", [1, 4, 3, 3])], [float_input("y", [1, 6, 7, 7])],
                           [numpy_helper.from_array(weights(4, 3, 3, 3), "w"),
                            numpy_helper.from_array(weights(6), "b")] + stats)
        simplified = self.fused(model, self.image(1, 4, 3, 3), 1, ["deconv", "sigmoid"])
        self.assertEqual(list(node_named(simplified, "deconv").input), ["x", "w", "b"])

    def test_batch_norm_into_gemm_with_alpha_beta_and_trans_b(self):
        norm, stats = batch_norm("bn", 5, "g", "y")
        model = make_model([helper.make_node("Gemm", ["x", "w", "c"], ["g"], name="gemm", alpha=0.5, beta=2.0,
                                             transB=1),
                            norm],
                           [float_input("x", [3, 4])], [float_input("y", [3, 5])],
                           [numpy_helper.from_array(weights(5, 4), "w"),
                            numpy_helper.from_array(weights(5), "c")] + stats)
        simplified = self.fused(model, self.image(3, 4), 1, ["gemm"])
        self.assertEqual(list(node_named(simplified, "gemm").input), ["x", "w", "c"])

    def test_batch_norm_into_gemm_without_c_and_with_a_scalar_c(self):
        norm, stats = batch_norm("bn", 5, "g", "y")
        other, other_stats = batch_norm("bn2", 5, "h", "z")
        model = make_model([helper.make_node("Gemm", ["x", "w"], ["g"], name="gemm"), norm,
                            helper.make_node("Gemm", ["x", "w2", "s"], ["h"], name="gemm2", beta=0.5), other],
                           [float_input("x", [3, 4])], [float_input("y", [3, 5]), float_input("z", [3, 5])],
                           [numpy_helper.from_array(weights(4, 5), "w"), numpy_helper.from_array(weights(4, 5), "w2"),
                            numpy_helper.from_array(np.array(0.25, dtype=np.float32), "s")] + stats + other_stats)
        simplified = self.fused(model, self.image(3, 4), 2, ["gemm", "gemm2"])
        self.assertEqual(len(node_named(simplified, "gemm").input), 3)
        self.assertEqual(values(simplified, "s").shape, (5,))

    def test_add_into_conv_bias_in_every_broadcast_form(self):
        # [1, M, 1, 1] first (as a Constant node, and as Add's first input), [M, 1, 1]
        # into the bias made by the first, then a scalar.
        model = make_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
                            constant("k1", RNG.normal(0, 1, (1, 4, 1, 1)).astype(np.float32)),
                            helper.make_node("Add", ["k1", "c"], ["a1"], name="add1"),
                            helper.make_node("Add", ["a1", "k2"], ["a2"], name="add2"),
                            helper.make_node("Add", ["a2", "k3"], ["y"], name="add3")],
                           [float_input("x", [1, 3, 5, 5])], [float_input("y", [1, 4, 3, 3])],
                           [numpy_helper.from_array(weights(4, 3, 3, 3), "w"),
                            numpy_helper.from_array(RNG.normal(0, 1, (4, 1, 1)).astype(np.float32), "k2"),
                            numpy_helper.from_array(np.array(0.75, dtype=np.float32), "k3")])
        simplified = self.fused(model, self.image(1, 3, 5, 5), 3, ["conv"])
        conv = node_named(simplified, "conv")
        self.assertEqual(list(conv.output), ["y"])
        # An Add changes the bias alone.
        np.testing.assert_array_equal(values(simplified, "w"), values(model, "w"))

    def test_mul_into_conv_weight_and_bias(self):
        model = make_model([helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv"),
                            helper.make_node("Mul", ["c", "k"], ["m"], name="mul"),
                            helper.make_node("Mul", ["m", "half"], ["y"], name="halve")],
                           [float_input("x", [1, 3, 5, 5])], [float_input("y", [1, 4, 3, 3])],
                           [numpy_helper.from_array(weights(4, 3, 3, 3), "w"), numpy_helper.from_array(weights(4), "b"),
                            numpy_helper.from_array(RNG.uniform(-2, 2, (4, 1, 1)).astype(np.float32), "k"),
                            numpy_helper.from_array(np.array([0.5], dtype=np.float32), "half")])
        simplified = self.fused(model, self.image(1, 3, 5, 5), 2, ["conv"])
        scale = values(model, "k").reshape(4) * 0.5
        np.testing.assert_allclose(values(simplified, "b"), values(model, "b") * scale, rtol=1e-6)
        np.testing.assert_allclose(values(simplified, "w"), values(model, "w") * scale.reshape(4, 1, 1, 1), rtol=1e-6)

    def test_conv_mul_add_batch_norm_chain_folds_in_one_pass(self):
        norm, stats = batch_norm("bn", 4, "a", "y")
        model = make_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
                            helper.make_node("Mul", ["c", "k"], ["m"], name="mul"),
                            helper.make_node("Add", ["m", "k"], ["a"], name="add"), norm],
                           [float_input("x", [1, 3, 5, 5])], [float_input("y", [1, 4, 3, 3])],
                           [numpy_helper.from_array(weights(4, 3, 3, 3), "w"),
                            numpy_helper.from_array(RNG.uniform(0.5, 2, (4, 1, 1)).astype(np.float32), "k")] + stats)
        simplified, report = self.simplify(model, "--simplify=fusions")
        # Each follower finds the Conv the one before it went into: the second round
        # finds nothing left.
        self.assertEqual(report["rounds"], 2)
        self.assertEqual(self.pass_of(report, "fusions")["nodes_removed"], 3)
        self.assertEqual([n.name for n in simplified.graph.node], ["conv"])
        self.assertEqual(report["verdict"], "proven")
        self.assert_runs_equal(model, simplified, self.image(1, 3, 5, 5))

    def test_mul_into_matmul_weight_per_column(self):
        model = make_model([helper.make_node("MatMul", ["x", "w"], ["p"], name="matmul"),
                            helper.make_node("Mul", ["p", "k"], ["q"], name="mul"),
                            helper.make_node("MatMul", ["q", "w2"], ["r"], name="matmul2"),
                            helper.make_node("Mul", ["r", "k2"], ["y"], name="mul2")],
                           [float_input("x", ["batch", "seq", 4])], [float_input("y", ["batch", "seq", 3])],
                           [numpy_helper.from_array(weights(4, 6), "w"), numpy_helper.from_array(weights(6, 3), "w2"),
                            numpy_helper.from_array(RNG.uniform(-2, 2, 6).astype(np.float32), "k"),
                            # [1, N] needs the output's rank (3, from inference): it does not widen it.
                            numpy_helper.from_array(RNG.uniform(-2, 2, (1, 3)).astype(np.float32), "k2")])
        simplified = self.fused(model, {"x": RNG.normal(0, 1, (2, 5, 4)).astype(np.float32)}, 2,
                                ["matmul", "matmul2"])
        np.testing.assert_allclose(values(simplified, "w"), values(model, "w") * values(model, "k"), rtol=1e-6)

    def test_shared_weight_is_copied_and_half_and_double_weights_stay_in_their_type(self):
        # Both Convs read w: each gets a fused copy, and w itself goes with no reader left.
        model = make_model([helper.make_node("Conv", ["x", "w"], ["c1"], name="conv1"),
                            helper.make_node("Mul", ["c1", "k"], ["y1"], name="mul1"),
                            helper.make_node("Conv", ["x", "w"], ["c2"], name="conv2"),
                            helper.make_node("Add", ["c2", "k"], ["y2"], name="add2")],
                           [float_input("x", [1, 3, 4, 4])], [float_input("y1", [1, 2, 2, 2]),
                                                              float_input("y2", [1, 2, 2, 2])],
                           [numpy_helper.from_array(weights(2, 3, 3, 3), "w"),
                            numpy_helper.from_array(np.array([[[2.0]], [[-3.0]]], dtype=np.float32), "k")])
        simplified = self.fused(model, self.image(1, 3, 4, 4), 2, ["conv1", "conv2"])
        self.assertEqual(node_named(simplified, "conv1").input[1], "w_fused")
        self.assertEqual(node_named(simplified, "conv2").input[1], "w")
        self.assertEqual(sorted(t.name for t in simplified.graph.initializer), ["conv2_bias", "w", "w_fused"])
        np.testing.assert_array_equal(values(simplified, "w"), values(model, "w"))

        for elem, dtype in ((TensorProto.FLOAT16, np.float16), (TensorProto.DOUBLE, np.float64)):
            w = weights(3, 2).astype(dtype)
            k = np.array([0.1, -3.0], dtype=dtype)
            typed = make_model([helper.make_node("MatMul", ["x", "w"], ["p"], name="matmul"),
                                helper.make_node("Mul", ["p", "k"], ["y"], name="mul")],
                               [helper.make_tensor_value_info("x", elem, [2, 3])],
                               [helper.make_tensor_value_info("y", elem, [2, 2])],
                               [numpy_helper.from_array(w, "w"), numpy_helper.from_array(k, "k")])
            simplified, report = self.simplify(typed, "--simplify=fusions")
            self.assertEqual(self.pass_of(report, "fusions")["nodes_removed"], 1)
            self.assertEqual([n.name for n in simplified.graph.node], ["matmul"])
            fused = values(simplified, "w")
            self.assertEqual(fused.dtype, dtype)
            # Computed in double, rounded once into the weight's type.
            np.testing.assert_array_equal(fused, (w.astype(np.float64) * k.astype(np.float64)).astype(dtype))
            self.assertEqual(report["verdict"], "proven")

    def test_batch_norm_in_a_branch_reading_the_outer_weight(self):
        # The branch's Conv reads the main graph's w: the fused weight is the branch's own.
        norm, stats = batch_norm("bn", 4, "c", "then_y")
        then_branch = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["c"], name="conv"), norm], "then", [],
                                        [float_input("then_y", [1, 4, 3, 3])], initializer=stats)
        else_branch = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["else_y"], name="plain_conv")], "else",
                                        [], [float_input("else_y", [1, 4, 3, 3])])
        model = make_model([helper.make_node("If", ["flag"], ["y"], name="if", then_branch=then_branch,
                                             else_branch=else_branch)],
                           [float_input("x", [1, 3, 5, 5]), helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
                           [float_input("y", [1, 4, 3, 3])], [numpy_helper.from_array(weights(4, 3, 3, 3), "w")])
        feeds = dict(self.image(1, 3, 5, 5), flag=np.array(True))
        simplified = self.fused(model, feeds, 1, ["if"])
        branch = [a.g for a in simplified.graph.node[0].attribute if a.name == "then_branch"][0]
        self.assertEqual([n.name for n in branch.node], ["conv"])
        self.assertEqual(list(branch.node[0].input), ["x", "w_fused", "conv_bias"])
        self.assertEqual(list(branch.node[0].output), ["then_y"])
        self.assertEqual(sorted(t.name for t in branch.initializer), ["conv_bias", "w_fused"])
        np.testing.assert_array_equal(values(simplified, "w"), values(model, "w"))

    def test_opset_6_add_lines_up_at_its_axis(self):
        # Before opset 7, Add(c, k, broadcast=1, axis=1) with k of [M] adds per channel;
        # without axis k lines up with the last dim: not per channel.
        def model_with(**attributes):
            return make_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
                               helper.make_node("Add", ["c", "k"], ["y"], name="add", **attributes)],
                              [float_input("x", [1, 3, 6, 6])], [float_input("y", [1, 4, 4, 4])],
                              [numpy_helper.from_array(weights(4, 3, 3, 3), "w"),
                               numpy_helper.from_array(np.arange(1, 5, dtype=np.float32), "k")], opset=6)
        simplified, report = self.simplify(model_with(broadcast=1, axis=1), "--simplify=fusions")
        self.assertEqual(self.pass_of(report, "fusions")["nodes_removed"], 1)
        self.assertEqual([n.name for n in simplified.graph.node], ["conv"])
        conv = node_named(simplified, "conv")
        np.testing.assert_array_equal(values(simplified, conv.input[2]), np.arange(1, 5, dtype=np.float32))
        self.assertEqual(list(conv.output), ["y"])
        self.unchanged(model_with(broadcast=1))

    def test_batch_norm_stays_where_it_must(self):
        def conv_bn(outputs=("y",), extra_nodes=(), graph_outputs=("y",), stats_input=False, **attributes):
            norm, stats = batch_norm("bn", 4, "c", outputs[0], **attributes)
            del norm.output[:]
            norm.output.extend(outputs)
            inputs = [float_input("x", [1, 3, 5, 5])]
            if stats_input:
                stats = stats[:2] + stats[3:]
                inputs.append(float_input("bn.mean", [4]))
            return make_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv"), norm] + list(extra_nodes),
                              inputs, [float_input(name, [1, 4, 3, 3]) for name in graph_outputs],
                              [numpy_helper.from_array(weights(4, 3, 3, 3), "w")] + stats, opset=15)
        # As a control, the plain form fuses.
        simplified, report = self.simplify(conv_bn(), "--simplify=fusions")
        self.assertEqual(self.pass_of(report, "fusions")["nodes_removed"], 1)
        # The Conv's output is a graph output too, or has a second reader.
        self.unchanged(conv_bn(graph_outputs=("y", "c")))
        self.unchanged(conv_bn(extra_nodes=[helper.make_node("Relu", ["c"], ["r"], name="relu")],
                               graph_outputs=("y", "r")))
        # The mean is fed.
        self.unchanged(conv_bn(stats_input=True))
        # Training mode normalizes with the batch's own statistics.
        self.unchanged(conv_bn(outputs=("y", "running_mean", "running_var"), training_mode=1))

    def test_constants_that_do_not_line_up_per_channel_stay(self):
        def conv_add(k_dims):
            return make_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
                               helper.make_node("Add", ["c", "k"], ["y"], name="add")],
                              [float_input("x", [1, 3, 6, 6])], [float_input("y", [1, 4, 4, 4])],
                              [numpy_helper.from_array(weights(4, 3, 3, 3), "w"),
                               numpy_helper.from_array(np.arange(4, dtype=np.float32).reshape(k_dims), "k")])
        # As a control, [M, 1, 1] fuses.
        simplified, report = self.simplify(conv_add([4, 1, 1]), "--simplify=fusions")
        self.assertEqual(self.pass_of(report, "fusions")["nodes_removed"], 1)
        # [M] lines up with the width of a Conv's output, not its channels (M = width
        # here); [1, M] with the height and width.
        self.unchanged(conv_add([4]))
        self.unchanged(conv_add([1, 4]))
        # A Gemm's C of [M, N] differs per row.
        norm, stats = batch_norm("bn", 5, "g", "y")
        gemm_bn = make_model([helper.make_node("Gemm", ["x", "w", "c"], ["g"], name="gemm"), norm],
                             [float_input("x", [3, 4])], [float_input("y", [3, 5])],
                             [numpy_helper.from_array(weights(4, 5), "w"),
                              numpy_helper.from_array(weights(3, 5), "c")] + stats)
        self.unchanged(gemm_bn)

        def matmul_mul(x_dims, nodes=(), inputs=(), x="x"):
            return make_model(list(nodes) + [helper.make_node("MatMul", [x, "w"], ["p"], name="matmul"),
                                             helper.make_node("Mul", ["p", "k"], ["y"], name="mul")],
                              [float_input("x", x_dims)] + list(inputs), [float_input("y", ["n", 3])],
                              [numpy_helper.from_array(weights(4, 3), "w"),
                               numpy_helper.from_array(np.ones((1, 3), dtype=np.float32), "k")])
        # As a control, a matrix's product takes [1, N].
        simplified, report = self.simplify(matmul_mul([2, 4]), "--simplify=fusions")
        self.assertEqual(self.pass_of(report, "fusions")["nodes_removed"], 1)
        # [1, N] would make a vector's product a matrix; after a Reshape to a shape of
        # unknown length the rank is unknown.
        self.unchanged(matmul_mul([4]))
        self.unchanged(matmul_mul([4], [helper.make_node("Reshape", ["x", "s"], ["r"], name="reshape")],
                                  [helper.make_tensor_value_info("s", TensorProto.INT64, ["rank"])], x="r"))
        # A weight that is a graph input may be fed: not constant.
        fed = make_model([helper.make_node("Conv", ["x", "w"], ["c"], name="conv"),
                          helper.make_node("Mul", ["c", "k"], ["y"], name="mul")],
                         [float_input("x", [1, 3, 5, 5]), float_input("w", [4, 3, 3, 3])],
                         [float_input("y", [1, 4, 3, 3])],
                         [numpy_helper.from_array(weights(4, 3, 3, 3), "w"),
                          numpy_helper.from_array(np.array(2.0, dtype=np.float32), "k")])
        self.unchanged(fed)


if __name__ == "__main__":
    unittest.main()
