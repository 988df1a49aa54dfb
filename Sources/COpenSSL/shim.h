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
#endif
