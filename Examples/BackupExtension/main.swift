// The example upload extension as a program of its own (a template: copy it, put your type in place of
// ServerBackupExtension): `photos uploads run` runs it in a kernel sandbox, where PHPhotoLibrary.shared() is the
// library its host serves it over a socket, with the access of the app it belongs to.
import BackgroundUploads
import PhotoUploadExtension

await UploadExtensionMain.run(ServerBackupExtension.self)
