#ifndef BUZZKIT_CNGHTTP2_H
#define BUZZKIT_CNGHTTP2_H
#include <nghttp2/nghttp2.h>
#endif
