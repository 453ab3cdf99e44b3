// `import PhotosUI` on Linux: PHContentEditingController, with Photos (and through it OpenPhotos, Core Image and
// UniformTypeIdentifiers) re-exported, as Apple's PhotosUI brings Photos with it.
