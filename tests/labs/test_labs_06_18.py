"""Labs 06-18: every starter runs on CPU with ``--steps 2 --check`` and prints the facts a learner should see;
every page embeds only annotated targets (labs 12-18 each function once) and asks every exercise the starter
checks."""

from __future__ import annotations

import pytest
from _starters import (
    SECTIONS,
    annotation_files,
    assert_solved_run_checks_every_answer,
    page_embedding_only_annotated_targets,
    page_text,
    starter_answers,
    wrong_answer_report,
)

# Facts each starter must print. They are computed by the real upstream code (diffusers, DiffSynth, torchao,
# gguf, quanto), so a change in their behaviour (or a broken starter) shows up here.
FACTS = {
    "06-vae-latent-space": [
        "latent (1, 4, 32, 32): spatial factor 2**(levels-1) = 2",
        "tiles decoded: 36 of shape (1, 4, 16, 16)",
        "strength 0.5: UNet timesteps [251, 1]",
        "0 missing, 0 unexpected keys",
    ],
    "07-pipeline-components": [
        "unet: ['diffusers', 'UNet2DConditionModel']",
        "safety_checker: [None, None]",
        "output max |diff| = 0.0",
        "in_iteration_models=('unet',)",
    ],
    "08-unet-dit-conditioning": [
        "time embedding after the MLP: (2, 128)",
        "12 attention processors, types ['AttnProcessor2_0']",
        "patch 2 -> tokens (2, 16, 24)",
        "adaLN-Zero linear output (2, 144) = 6 x inner_dim",
    ],
    "09-lora-injection": [
        "96 tensors in the file -> 48 wrapped layers",
        "A (4, 64), B (64, 4), scaling = lora_alpha / r = 1.0",
        "scale 0.00: max |output - base| = 0.0000",
        "layers still wrapped after unload: 0",
    ],
    "10-controlnet-conditioning": [
        "max |residual| = 0.0; UNet output change when they are added = 0.0",
        "ControlNet calls 2 (batch [2, 2]), UNet calls 2 (batch [2, 2])",
        "scale 0.0: 0.0000",
    ],
    "11-memory-optimization": [
        "largest score tensor: classic 4096 KiB, sliced(1) 256 KiB",
        "3 hooks ['CLIPTextModel', 'UNet2DConditionModel', 'AutoencoderKL']",
        "170 wrapped modules",
    ],
    "12-multistep-solvers": [
        "DDIM and Euler (same trailing grid, 10 steps) land on the same sample: True",
        "Heun with 10 steps calls the model 19 times",
        "DPM-Solver++ timesteps for 20 steps: [999, 949, 899] ... [100, 50]",
        "DPM-Solver++ 3M,  8 steps: [1, 2, 3, 3, 3, 3, 2, 1]",
        "UniPC order 3,     8 steps: [1, 2, 3, 3, 3, 3, 2, 1]",
        "UniPC bh1, final_sigmas_type='zero': error nan",
        "Qwen-Image           1.000, 0.922, 0.832, 0.726, 0.600, 0.447, 0.259, 0.020",
        "compute_empirical_mu(4096 tokens, 8 steps) = 2.268",
    ],
    "13-flux": [
        "latent (1, 1, 16, 16) -> tokens (1, 64, 4); ids (64, 3), token 9 has ids [0.0, 1.0, 1.0]",
        "unpack(pack(x)) == x: True",
        "64 tokens: mu = 0.4675",
        "4096 tokens: mu = 1.1500",
        "2 steps at 64 tokens: sigmas [1.0, 0.5] -> timesteps [1000.0, 614.8]",
        "guidance_scale 3.5 reaches the embedding as 3500.0; 2 transformer calls for 2 steps",
        "true_cfg_scale 4.0 + negative_prompt: 4 calls, batch sizes [1, 1, 1, 1]",
        "text ids (16, 3), all zero: True",
        "diffusers RoPE cos (80, 16) (axes [2, 6, 8]); DiffSynth rotation matrices (1, 1, 80, 8, 2, 2)",
        "to_qkv_mlp out_features = 224",
    ],
    "14-sdxl": [
        "prompt_embeds (1, 16, 64) = encoder 1 width 32 + encoder 2 width 32",
        "pooled (1, 32) is the text_embeds of: text_encoder_2",
        "time ids [24.0, 20.0, 2.0, 3.0, 16.0, 16.0]; add_embedding takes 80 = 6 x 8 + 32",
        "projection dim 16 -> ValueError",
        "VAE dtype after the call: float16",
        "time ids (negative, positive): [[24, 20, 0, 0, 2], [24, 20, 2, 3, 7]]",
        "4 UNet calls for 2 steps with CFG, batch sizes [1, 1, 1, 1]",
        "clip_skip=2 picks hidden_states[-3] of encoder 1",
        "pooled vector for 'a cat' == for 'a red house': True",
        "guidance_rescale=0.5 -> KeyError 'add_time_ids'",
    ],
    "15-attention-backends-compile": [
        "active backend: native;",
        "TypeError: 'NoneType' object is not callable",
        "RuntimeError: Flash Attention backend 'flash' is not usable",
        "ValueError: Query, key, and value must be either bfloat16 or float16.",
        "Flux: 4 of 4 processors (FluxAttnProcessor) hold a backend",
        "active backend _native_math",
        "classic Attention with AttnProcessor2_0: has _attention_backend = False",
        "1 graph(s) for 2 blocks",
        "graphs 1 -> 2",
        "ATTENTION_IMPLEMENTATION = 'torch' (chosen at import), TORCH_SUPPORT_GQA = False",
    ],
    "16-quantization": [
        "TorchAoConfig('int8wo') -> TypeError: quant_type must be an AOBaseConfig instance, got str",
        "BitsAndBytesConfig(load_in_8bit=True) -> BnB8BitDiffusersQuantizer",
        "Linear weights still float: 3 ['single_transformer_blocks.0.proj_out', 'single_transformer_blocks.1.proj_out', 'proj_out']",
        "49 tensors stored as Q8_0; a block = 32 values in 34 bytes",
        "GGUFLinear weight: torch.uint8 (32, 136) -> dequantized torch.float16 (32, 128)",
        "Linears kept in float32 by the default patterns: 8",
        "tiny SD UNet (1 layer per block): 42 of 50 nn.Linear quantized",
        "activation scale 1.0",
    ],
    "17-offload-caching": [
        "after removing 'double' the output is layer(x) + 1, negate bypassed: True",
        "block level on disk: 5 safetensors files",
        "use_stream=True with a CPU onload device -> ValueError",
        "cached model called outside cache_context -> ValueError",
        "t=0.90: 4 block bodies ran, max difference from the uncached call 0",
        "t=0.85: 1 block bodies ran",
        "after disable_cache the output equals the uncached run exactly: True",
        "AutoWrappedModule: offloaded as torch.bfloat16, state 2 after one call, stored dtype now float32",
    ],
    "18-ip-adapter": [
        "IP-Adapter processors: 6 of 12; checkpoint entry per layer, in attn_processors order:",
        "ip_adapter.5  -> up_blocks.0.attentions.0.transformer_blocks.0.attn2",
        "ip_adapter.11 -> mid_block.attentions.0.transformer_blocks.0.attn2",
        "image embeds (2, 1, 16) -> image tokens (2, 1, 4, 32)",
        "scale 0: max |diff| vs no adapter = 0.0",
        "-> [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]",
        "after unload_ip_adapter: max |diff| vs no adapter = 0.0",
        "IP-Adapter processors: 2 of 4: ['transformer_blocks.0', 'transformer_blocks.1']",
        "ip_adapter_image_embeds without negative_ip_adapter_image_embeds -> AttributeError",
        "K/V for blocks [0, 1]; ip_k (1, 2, 8, 32); scale 0.6 (negative pass: 1.0)",
    ],
}
LABS = tuple(FACTS)
DRAWN_ONCE = tuple(lab for lab in LABS if lab >= "12")
"""Labs written after the site started drawing a function once per page (older pages may repeat one in a comparison)."""


@pytest.mark.slow
@pytest.mark.parametrize("lab", LABS)
def test_starter_runs_and_checks(starter_runs, lab):
    assert_solved_run_checks_every_answer(starter_runs[lab], lab, FACTS[lab])


@pytest.mark.parametrize("lab", LABS)
def test_check_counts_a_wrong_answer(lab, capsys):
    """--check is a real check: the report the starter exits with flags a wrong value by name."""
    right, wrong, key = wrong_answer_report(lab)
    assert right == 0
    assert wrong == 1
    assert f"[WRONG] {key}: your answer" in capsys.readouterr().out


@pytest.mark.parametrize("lab", LABS)
def test_page_embeds_only_annotated_targets(lab):
    page_embedding_only_annotated_targets(lab)


@pytest.mark.parametrize("lab", LABS)
def test_page_asks_every_checked_exercise(lab):
    page = page_text(lab)
    answers = starter_answers(lab)
    assert answers, f"{lab}: the starter asks no exercise"
    for key in answers:
        assert f"`{key}`" in page, f"{lab}: exercise answer {key!r} is checked by the starter but not asked on the page"
    for heading in SECTIONS:
        assert heading in page, f"{lab}: missing section {heading!r}"


@pytest.mark.parametrize("lab", DRAWN_ONCE)
def test_page_embeds_each_function_once(lab):
    page = page_text(lab)
    lines = [line.strip() for line in page.splitlines()]
    named = [line.split("}", 1)[1].strip() for line in lines if line.startswith("```{infralens-function}")]
    named += [line.split(":", 2)[2].strip() for line in lines if line.startswith((":diffusers:", ":diffsynth:"))]
    assert len(named) == len(set(named)), f"{lab}: a function is embedded twice"


@pytest.mark.parametrize("lab", LABS)
def test_annotations_point_at_existing_labs(lab):
    """Every annotation of this lab names it by its folder slug (so the site can link both ways)."""
    annotations = annotation_files(f"{lab[:2]}-*.yaml")
    assert annotations, f"no annotation file annotations/*/{lab[:2]}-*.yaml"
    for path, annotation in annotations:
        assert annotation["lab"] == lab, f"{path.name}: annotation {annotation['id']} names lab {annotation['lab']!r}"
