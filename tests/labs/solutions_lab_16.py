"""Correct answers for lab 16 (merged into ``solutions.SOLUTIONS``)."""

LAB = "16-quantization"
SOLUTION = {
    "string_quant_type_error": "TypeError",
    "bnb_8bit_quantizer_class": "BnB8BitDiffusersQuantizer",
    "torchao_float_linears": 3,
    "int8_weight_class": "Int8Tensor",
    "q8_0_block_bytes": 34,
    "q8_0_weight_bytes_shape": [32, 136],
    "gguf_dequant_dtype": "float16",
    "quanto_float_linears": 3,
    "layerwise_float32_linears": 8,
    "layerwise_repeat_exact": True,
    "int8_error_below_fp8_storage": True,
    "diffsynth_quantized_linears": 42,
    "fp8_activation_scale_small_rows": 1.0,
    "cost_flux_fp8_t5_bf16_peak_gib": 24.865,
    "cost_flux_fp8_layerwise_bits_per_param": 10.183,
}
