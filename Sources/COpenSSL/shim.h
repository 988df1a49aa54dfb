#ifndef PARLEY_COPENSSL_SHIM_H
#define PARLEY_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>

/* Function-like macros Swift cannot call directly. */
static inline long parley_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline long parley_BIO_set_mem_eof_return(BIO *b, int v) { return BIO_set_mem_eof_return(b, v); }
static inline long parley_BIO_ctrl_pending(BIO *b) { return (long)BIO_ctrl_pending(b); }
static inline long parley_SSL_CTX_set_mode(SSL_CTX *c, long m) { return SSL_CTX_set_mode(c, m); }
static inline long parley_SSL_set_tlsext_host_name(SSL *s, const char *name) { return SSL_set_tlsext_host_name(s, name); }
static inline long parley_SSL_CTX_set_min_proto_version(SSL_CTX *c, int v) { return SSL_CTX_set_min_proto_version(c, v); }
static inline long parley_DTLS_get_timeout(SSL *s, struct timeval *tv) { return DTLSv1_get_timeout(s, tv); }
static inline long parley_DTLS_handle_timeout(SSL *s) { return DTLSv1_handle_timeout(s); }
/* DTLS-SRTP (DTLSSession, CertificateIdentity). */
static inline long parley_SSL_set_mtu(SSL *s, long mtu) { return SSL_set_mtu(s, mtu); }
static inline void parley_SSL_set_no_query_mtu(SSL *s) { SSL_set_options(s, SSL_OP_NO_QUERY_MTU); }
static inline int parley_BIO_reset(BIO *b) { return (int)BIO_reset(b); }
static inline EVP_PKEY *parley_EVP_EC_gen_P256(void) { return EVP_EC_gen("P-256"); }
/* SRTP's HMAC-SHA1 (ParleySRTP): SHA_CTX is a plain struct, so precomputed HMAC pads are copied by
 * value per packet with no allocation (OpenSSL 3.0's EVP_MD_CTX_copy_ex allocates on every copy).
 * The low-level SHA1 calls are deprecated in 3.0, not removed; these wrappers keep the warning here. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
static inline int parley_SHA1_Init(SHA_CTX *c) { return SHA1_Init(c); }
static inline int parley_SHA1_Update(SHA_CTX *c, const void *data, size_t length) { return SHA1_Update(c, data, length); }
static inline int parley_SHA1_Final(unsigned char *digest, SHA_CTX *c) { return SHA1_Final(digest, c); }
#pragma clang diagnostic pop
/* AEAD controls are macros of macros. */
static inline int parley_EVP_CIPHER_CTX_set_gcm_iv_length(EVP_CIPHER_CTX *c, int length) { return EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_IVLEN, length, NULL); }
static inline int parley_EVP_CIPHER_CTX_get_gcm_tag(EVP_CIPHER_CTX *c, int length, void *tag) { return EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, length, tag); }
static inline int parley_EVP_CIPHER_CTX_set_gcm_tag(EVP_CIPHER_CTX *c, int length, void *tag) { return EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_SET_TAG, length, tag); }
#endif
