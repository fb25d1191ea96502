"""Fig. 8's deep-learning workloads as per-iteration all-reduce messages (paper 003, §6.A.1).

The paper takes the message sizes from TopoOpt's task graphs (its ref. [30]) and does not list
them; railx derives them from the models' published layer shapes: one all-reduce per layer with
weights, of that layer's gradient in fp32 (4 bytes a parameter), run one after another.

- VGG-16: configuration D of Simonyan and Zisserman, "Very deep convolutional networks for
  large-scale image recognition" (arXiv:1409.1556), Table 1: 13 3x3 convolutions and three
  fully connected layers on 224 x 224 x 3 images, 1,000 classes; 138,357,544 parameters.
- CANDLE Uno: the default Uno configuration of the FlexFlow model zoo that TopoOpt trains
  (Wang et al., NSDI'23): dense feature models of 8 layers of 4,192 for each of the five encoded
  inputs (cell RNA-seq 942 features, two drugs' descriptors 5,270 and fingerprints 2,048),
  concatenated with two dose scalars, then 4 dense layers of 4,192 and one output, no biases.
- BERT: BERT-large of Devlin et al., "BERT: pre-training of deep bidirectional transformers"
  (arXiv:1810.04805): 24 layers, hidden 1,024, feed-forward 4,096, 30,522-token vocabulary,
  512 positions, 2 segment types; one all-reduce for the embeddings, one per encoder layer, one
  for the pooler (335,141,888 parameters).
"""

from __future__ import annotations

from collections import Counter

from railx.config import ConfigError
from railx.messages import shown

__all__ = ["BYTES_PER_PARAMETER", "WORKLOADS", "iteration_messages", "parameters"]

BYTES_PER_PARAMETER = 4  # fp32 gradients


def _vgg16() -> list[int]:
    convs = [(3, 64), (64, 64), (64, 128), (128, 128), (128, 256), (256, 256), (256, 256)]
    convs += [(256, 512), (512, 512), (512, 512), (512, 512), (512, 512), (512, 512)]
    layers = [3 * 3 * cin * cout + cout for cin, cout in convs]
    fcs = [(7 * 7 * 512, 4096), (4096, 4096), (4096, 1000)]
    return layers + [fin * fout + fout for fin, fout in fcs]


def _candle_uno() -> list[int]:
    width, feature_layers, dense_layers = 4192, 8, 4
    encoded_inputs = [942, 5270, 2048, 5270, 2048]  # cell.rnaseq, drug1/drug2 descriptors, fingerprints
    layers = []
    for features in encoded_inputs:
        layers += [features * width] + [width * width] * (feature_layers - 1)
    concat = len(encoded_inputs) * width + 2  # plus dose1 and dose2
    layers += [concat * width] + [width * width] * (dense_layers - 1) + [width]
    return layers


def _bert_large() -> list[int]:
    hidden, ffn, layers, vocab, positions, segments = 1024, 4096, 24, 30522, 512, 2
    embeddings = (vocab + positions + segments) * hidden + 2 * hidden  # + LayerNorm
    attention = 4 * (hidden * hidden + hidden) + 2 * hidden
    feed_forward = hidden * ffn + ffn + ffn * hidden + hidden + 2 * hidden
    pooler = hidden * hidden + hidden
    return [embeddings] + [attention + feed_forward] * layers + [pooler]


WORKLOADS = {"vgg16": _vgg16, "candle-uno": _candle_uno, "bert-large": _bert_large}


def parameters(workload: str) -> list[int]:
    """Parameters of each layer with weights, in order."""
    if workload not in WORKLOADS:
        raise ConfigError(f"workload = {shown(workload)}: unknown; use one of {', '.join(WORKLOADS)}")
    return WORKLOADS[workload]()


def iteration_messages(workload: str) -> dict[int, int]:
    """One iteration's all-reduces: message bytes -> how many layers have that size."""
    return dict(Counter(p * BYTES_PER_PARAMETER for p in parameters(workload)))
