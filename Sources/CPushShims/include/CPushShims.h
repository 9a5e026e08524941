#ifndef BUZZKIT_CPUSHSHIMS_H
#define BUZZKIT_CPUSHSHIMS_H
#include <curl/curl.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <stddef.h>

/* Non-variadic wrappers for libcurl's variadic calls, and OpenSSL macros Swift cannot import. */

/** curl_easy_setopt with a long argument (numbers and flags). */
CURLcode bk_curl_easy_setopt_long(CURL *handle, CURLoption option, long value);
/** curl_easy_setopt with a pointer argument (strings, slists, user data). */
CURLcode bk_curl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
/** curl_easy_setopt with a curl_off_t argument (sizes). */
CURLcode bk_curl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
/** curl_easy_setopt with a write or header callback. */
CURLcode bk_curl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value);
/** curl_easy_setopt with an SSL context callback (CURLOPT_SSL_CTX_FUNCTION). */
CURLcode bk_curl_easy_setopt_ssl_ctx_callback(CURL *handle, CURLoption option, curl_ssl_ctx_callback value);
/** curl_easy_getinfo for long results. */
CURLcode bk_curl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);
/** curl_multi_setopt with a long argument. */
CURLMcode bk_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
/** The result of a CURLMSG_DONE message (a member of a union). */
CURLcode bk_curl_msg_result(const CURLMsg *message);

/** EVP_PKEY_EC (a macro aliasing a NID). */
int bk_evp_pkey_ec(void);
/** SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) (a macro over SSL_CTX_ctrl). */
int bk_ssl_ctx_require_tls12(SSL_CTX *ctx);
/** SSL_CTX_set_mode(ctx, partial writes | moving write buffer) (a macro over SSL_CTX_ctrl). */
long bk_ssl_ctx_set_nonblocking_modes(SSL_CTX *ctx);
/** SSL_set_tlsext_host_name (a macro over SSL_ctrl), for test clients. */
int bk_ssl_set_host_name(SSL *ssl, const char *name);
/** BIO_get_mem_data (a macro over BIO_ctrl): the bytes written to a memory BIO. */
long bk_bio_mem_contents(BIO *bio, const char **data);
/** OPENSSL_free (a macro over CRYPTO_free). */
void bk_openssl_free(void *pointer);

#endif
