#if defined(__GNUC__)
#if __GNUC__ > 15
#error -- unsupported GNU version! gcc versions later than 15 are not supported! (a flag can override this)
#endif
#if (__clang_major__ >= 21)
#error -- unsupported clang version! clang version must be less than 21 and greater than 3.2 .
#endif
#endif
