"""Rule cases for a target whose new home's body was rewritten on the way, each from set 40.

* A module function turned method of a new class that holds its inputs
  (``utils.backbone_utils.verify_out_features_out_indices(out_features, out_indices, stage_names)`` →
  ``backbone_utils.BackboneConfigMixin.verify_out_features_out_indices(self)``, each parameter now
  ``self._out_features`` or ``self.stage_names``): ``moved-same-name`` measures the body with each parameter read as
  the attribute the method spells.
* A method its callers replaced by one whose name keeps its words, one swapped (``BriaFiboEditPipeline``'s
  ``prepare_image_latents`` → ``prepare_reference_latents``), its body rewritten below ``replaced_share``:
  ``replaced-at-callers`` asks only ``renamed_words_share`` of it.
* A module renamed with its one function (set 41's DiffSynth ``joyai_image_text_encoder.JoyAIImageTextEncoderStateDictConverter``
  → ``qwen_image_21_text_encoder.QwenImage21TextEncoderStateDictConverter``), its statements as common as those of
  the converters beside it: ``renamed-body-overlap`` also reads the files new in the gone file's folder. And a module
  renamed with its class, a method's body rewritten on the way (set 41's ``continuous_batching.input_ouputs`` →
  ``input_outputs``): ``moved-module`` takes the same qualname in a file new beside the gone one whatever its body.
  And a method renamed with its class and module, keeping its name's words (set 41's
  ``image_processing_utils_fast.BaseImageProcessorFast._process_image`` →
  ``image_processing_backends.TorchvisionBackend.process_image``): ``renamed-keeping-words`` reads those files too.

:mod:`rule_cases` adds them to its tables."""

from __future__ import annotations

from rule_cases import RuleCase

from infralens.drift.match.rules import TargetRule

FUNCTION_OLD = """
def check_stages(features, indices, names):
    if names is None:
        raise ValueError("names must be set")
    if features is not None:
        if any(f not in names for f in features):
            raise ValueError(f"features must be among {names}")
    if indices is not None:
        positive = tuple(i % len(names) for i in indices)
        if len(positive) != len(set(positive)):
            raise ValueError("duplicate indices")
    if features is not None and indices is not None:
        if len(features) != len(indices):
            raise ValueError("features and indices differ in length")
"""
METHOD_NEW = """
class StagesMixin:
    def check_stages(self):
        if self.names is None:
            raise ValueError("names must be set")
        if self._features is not None:
            if any(f not in self.names for f in self._features):
                raise ValueError(f"features must be among {self.names}")
        if self._indices is not None:
            positive = tuple(i % len(self.names) for i in self._indices)
            if len(positive) != len(set(positive)):
                raise ValueError("duplicate indices")
        if self._features is not None and self._indices is not None:
            if len(self._features) != len(self._indices):
                raise ValueError("features and indices differ in length")
"""
# The old module is left with a shim of other names; the function is a method of a new mixin in a new module, every
# parameter read off ``self``: only four statements are the same text, too few alone.
SHIM_NEW = "from demo.mixins import StagesMixin\n"
OTHER_ATTRIBUTES_NEW = METHOD_NEW.replace("self._features", "self.wanted").replace("self._indices", "self.picked").replace("self.names", "self.stage_list")
# The same method reading attributes named after nothing the function took: no parameter reads as one.

CALLEE_OLD = """
class Pipeline:
    def __call__(self, image):
        latents, ids = self.prepare_image_latents(image, 2)
        return latents, ids

    def prepare_image_latents(self, image, batch):
        image = image.to(self.device)
        if image.ndim == 3:
            image = image.unsqueeze(0)
        self.check_size(image, multiple=16)
        generator = torch.Generator().manual_seed(0)
        height = int(image.shape[-2]) // self.scale
        mean = torch.tensor(self.config.mean).view(1, -1, 1, 1).to(self.device)
        std = 1.0 / torch.tensor(self.config.std).view(1, -1, 1, 1).to(self.device)
        latents = self.vae.encode(image.unsqueeze(2)).mean
        scaled = [(latent - mean) * std for latent in latents]
        latents = torch.concat(scaled, dim=0)
        packed = self._pack(latents=latents, batch=batch, height=height)
        ids = self._ids(batch=batch, height=height)
        ids[..., 0] = 1
        return packed, ids
"""
CALLEE_NEW = """
class Pipeline:
    def __call__(self, images):
        for index, image in enumerate(images):
            packed, ids = self.prepare_reference_latents(image, index + 1)
        return packed, ids

    def prepare_reference_latents(self, image, index):
        encoded = self.processor.preprocess(image.convert("RGB")).to(self.device)
        latent = self.vae.encode(encoded.unsqueeze(2)).mean[:, :, 0]
        mean = torch.tensor(self.config.mean, dtype=latent.dtype).view(1, -1, 1, 1)
        std = torch.tensor(self.config.std, dtype=latent.dtype).view(1, -1, 1, 1)
        latent = (latent - mean) / std
        packed = self._pack(latents=latent, batch=1, height=latent.shape[-2])
        ids = self._ids(batch=1, height=latent.shape[-2])
        ids[..., 0] = index
        return packed, ids
"""
# __call__ now calls prepare_reference_latents where it called prepare_image_latents: about half the reviewed
# statements have a close one there (below replaced_share), and the name keeps two words, one swapped.
UNNAMED_CALLEE_NEW = CALLEE_NEW.replace("prepare_reference_latents", "encode_reference")
# The same callee under a name that keeps none of the target's words: the body alone says too little.

CONVERTER = """
def {name}(state_dict):
    converted = {{}}
    for key in state_dict:
        if key == "{head}":
            new_key = "model.{head}"
        else:
            new_key = key
        converted[new_key] = state_dict[key]
    return converted
"""
SIBLINGS = {f"conv_{n}.py": CONVERTER.format(name=f"Convert{n}", head=f"head_{n}.weight") for n in "abcde"}
# Five converters there at the review and still there, each holding the target's first statements.
RENAMED_MODULE_OLD = {**SIBLINGS, "conv_x.py": CONVERTER.format(name="ConvertX", head="lm_head.weight")}
RENAMED_MODULE_NEW = {**SIBLINGS, "conv_y.py": CONVERTER.format(name="ConvertY", head="lm_head.weight")}
# conv_x.py is gone and conv_y.py, new in its folder, holds its one function under a new name.
RENAMED_MODULE_ELSEWHERE_NEW = {**SIBLINGS, "other/conv_y.py": CONVERTER.format(name="ConvertY", head="lm_head.weight")}
# The same file new in another folder, found by no statement the target shares with its siblings.

BATCH_OLD = """
class BatchIOs:
    def prepare(self, requests):
        if not requests:
            raise ValueError("No requests in batch")
        ids = []
        for state in requests:
            ids.extend(state.tokens)
            self.max_len = max(self.max_len, len(state.tokens))
        self.ids[: len(ids)] = to_tensor(ids)
"""
BATCH_NEW = """
class BatchIOs:
    def prepare(self, future_states, processors, use_padding=False):
        if not future_states:
            raise ValueError("No requests in batch")
        ids = []
        for future in future_states:
            ids.extend(future.state.pending_tokens)
            self.max_q = max(self.max_q, future.query_length)
        if use_padding:
            ids += [0] * self.padding(len(ids))
        self.host_ids[: len(ids)] = torch.tensor(ids, dtype=torch.int32)
        processors.prepare(future_states)
"""
# io_ouputs.py became io_outputs.py: the same class and method, the body mostly rewritten.
TYPO_OLD = {"io_ouputs.py": BATCH_OLD}
TYPO_NEW = {"io_outputs.py": BATCH_NEW}
TYPO_ELSEWHERE_NEW = {"serving/io_outputs.py": BATCH_NEW}
# The same file new in another folder: a module moved away, whose rewritten body says too little.

PROCESS_OLD = """
class BaseFast:
    def _process_image(self, image, device=None):
        kind = image_kind(image)
        if kind not in (Kind.PIL, Kind.TORCH):
            raise ValueError(f"Unsupported image kind {kind}")
        if kind == Kind.PIL:
            image = to_tensor(image)
        if image.ndim == 2:
            image = image.unsqueeze(0)
        if device is not None:
            image = image.to(device)
        return image
"""
PROCESS_NEW = """
class TorchBackend:
    def process_image(self, image, device=None, convert_rgb=False):
        kind = image_kind(image)
        if kind not in (Kind.PIL, Kind.TORCH, Kind.NUMPY):
            raise ValueError(f"Unsupported image kind {kind}")
        if convert_rgb:
            image = self.to_rgb(image)
        if kind == Kind.PIL:
            image = to_tensor(image)
        elif kind == Kind.NUMPY:
            image = torch.from_numpy(image)
        if device is not None:
            image = image.to(device, non_blocking=True)
        return image


class PilBackend:
    def process_image(self, image, convert_rgb=False):
        if convert_rgb:
            image = image.convert("RGB")
        return np.asarray(image)
"""
# fast.py is gone; backends.py, new beside it, holds the method without its underscore, on a class of another name, half
# of it rewritten (too little for renamed-body-overlap).
PROCESS_FILES_OLD = {"imaging/fast.py": PROCESS_OLD}
PROCESS_FILES_NEW = {"imaging/backends.py": PROCESS_NEW}
PROCESS_ELSEWHERE_NEW = {"imaging/__init__.py": "", "serving/backends.py": PROCESS_NEW}
# The same file new in another folder: not where a module renamed would be.
PROCESS_NAMESAKE_NEW = {**PROCESS_FILES_NEW, "imaging/legacy.py": "def _process_image(image):\n    return image\n"}
# A file new beside it defines the old name: the name was kept there, a namesake rule's case, not a rename.

CASES: list[RuleCase] = [
    RuleCase(
        "moved-same-name-parameters-read-off-self",
        TargetRule.MOVED_SAME_NAME,
        {"stages.py": FUNCTION_OLD},
        {"stages.py": SHIM_NEW, "mixins.py": METHOD_NEW},
        ("if features is not None and indices is not None:",),
        "target",
        target="demo.stages.check_stages",
        kind="moved",
    ),
    RuleCase(
        "replaced-at-callers-by-a-name-keeping-its-words",
        TargetRule.REPLACED_AT_CALLERS,
        {"pipe.py": CALLEE_OLD},
        {"pipe.py": CALLEE_NEW},
        ("ids[..., 0] = 1",),
        "target",
        target="demo.pipe.Pipeline.prepare_image_latents",
    ),
    RuleCase(
        "renamed-body-overlap-in-a-file-new-beside-the-gone-one",
        TargetRule.RENAMED_BODY_OVERLAP,
        RENAMED_MODULE_OLD,
        RENAMED_MODULE_NEW,
        ("converted = {}",),
        "target",
        target="demo.conv_x.ConvertX",
    ),
    RuleCase(
        "moved-module-to-a-file-new-beside-the-gone-one",
        TargetRule.MOVED_MODULE,
        TYPO_OLD,
        TYPO_NEW,
        ('raise ValueError("No requests in batch")',),
        "target",
        target="demo.io_ouputs.BatchIOs.prepare",
        kind="moved",
    ),
    RuleCase(
        "renamed-keeping-words-in-a-file-new-beside-the-gone-one",
        TargetRule.RENAMED_KEEPING_WORDS,
        PROCESS_FILES_OLD,
        PROCESS_FILES_NEW,
        ("return image",),
        "target",
        target="demo.imaging.fast.BaseFast._process_image",
    ),
]

HELD_BACK: list[RuleCase] = [
    RuleCase(
        "moved-same-name-not-by-attributes-of-other-names",
        TargetRule.MOVED_SAME_NAME,
        {"stages.py": FUNCTION_OLD},
        {"stages.py": SHIM_NEW, "mixins.py": OTHER_ATTRIBUTES_NEW},
        ("if features is not None and indices is not None:",),
        "target",
        target="demo.stages.check_stages",
    ),
    RuleCase(
        "replaced-at-callers-not-below-its-share-by-a-name-keeping-no-word",
        TargetRule.REPLACED_AT_CALLERS,
        {"pipe.py": CALLEE_OLD},
        {"pipe.py": UNNAMED_CALLEE_NEW},
        ("ids[..., 0] = 1",),
        "target",
        target="demo.pipe.Pipeline.prepare_image_latents",
    ),
    RuleCase(
        "renamed-body-overlap-not-in-a-new-file-of-another-folder",
        TargetRule.RENAMED_BODY_OVERLAP,
        RENAMED_MODULE_OLD,
        RENAMED_MODULE_ELSEWHERE_NEW,
        ("converted = {}",),
        "target",
        target="demo.conv_x.ConvertX",
    ),
    RuleCase(
        "moved-module-not-whatever-its-body-in-another-folder",
        TargetRule.MOVED_MODULE,
        TYPO_OLD,
        TYPO_ELSEWHERE_NEW,
        ('raise ValueError("No requests in batch")',),
        "target",
        target="demo.io_ouputs.BatchIOs.prepare",
    ),
    RuleCase(
        "renamed-keeping-words-not-in-a-new-file-of-another-folder",
        TargetRule.RENAMED_KEEPING_WORDS,
        PROCESS_FILES_OLD,
        PROCESS_ELSEWHERE_NEW,
        ("return image",),
        "target",
        target="demo.imaging.fast.BaseFast._process_image",
    ),
    RuleCase(
        "renamed-keeping-words-not-beside-a-new-namesake",
        TargetRule.RENAMED_KEEPING_WORDS,
        PROCESS_FILES_OLD,
        PROCESS_NAMESAKE_NEW,
        ("return image",),
        "target",
        target="demo.imaging.fast.BaseFast._process_image",
    ),
]
