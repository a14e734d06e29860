#if __GNUC__ > 11
#error -- unsupported GNU version! gcc versions later than 11 are not supported!
#endif
#error -- unsupported clang version! clang version must be less than 15 and greater than 3.2 .
