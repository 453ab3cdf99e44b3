// Client code imports one module and gets Apple's Photos where it exists, OpenPhotos elsewhere
// (the pattern of OpenCombineShim).
#if canImport(Photos)
    @_exported import Photos
#else
    @_exported import OpenPhotos
#endif
