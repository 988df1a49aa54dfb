#ifndef PARLEY_CVPX_SHIM_H
#define PARLEY_CVPX_SHIM_H
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
/* vpx_codec_enc_init/dec_init are macros that pass the ABI version, and vpx_codec_control is
   variadic: Swift calls these typed wrappers. */
static inline vpx_codec_err_t parley_vpx_enc_init(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg) {
    return vpx_codec_enc_init(ctx, vpx_codec_vp8_cx(), cfg, 0);
}
static inline vpx_codec_err_t parley_vpx_enc_config_default(vpx_codec_enc_cfg_t *cfg) {
    return vpx_codec_enc_config_default(vpx_codec_vp8_cx(), cfg, 0);
}
static inline vpx_codec_err_t parley_vpx_dec_init(vpx_codec_ctx_t *ctx) {
    return vpx_codec_dec_init(ctx, vpx_codec_vp8_dx(), NULL, 0);
}
static inline vpx_codec_err_t parley_vpx_set_cpu_used(vpx_codec_ctx_t *ctx, int value) {
    return vpx_codec_control(ctx, VP8E_SET_CPUUSED, value);
}
static inline vpx_codec_err_t parley_vpx_set_static_threshold(vpx_codec_ctx_t *ctx, unsigned int value) {
    return vpx_codec_control(ctx, VP8E_SET_STATIC_THRESHOLD, value);
}
static inline vpx_codec_err_t parley_vpx_set_noise_sensitivity(vpx_codec_ctx_t *ctx, unsigned int value) {
    return vpx_codec_control(ctx, VP8E_SET_NOISE_SENSITIVITY, value);
}
static inline vpx_codec_err_t parley_vpx_set_token_partitions(vpx_codec_ctx_t *ctx, int value) {
    return vpx_codec_control(ctx, VP8E_SET_TOKEN_PARTITIONS, value);
}
#endif
