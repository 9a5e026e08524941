#ifndef BUZZKIT_CCURL_H
#define BUZZKIT_CCURL_H
#include <curl/curl.h>
#endif
