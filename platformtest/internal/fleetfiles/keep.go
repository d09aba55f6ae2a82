package fleetfiles

// StoreFile is the name of the file service's file in a data folder,
// without its ".db".
const StoreFile = "files"

// BlobFolder is the name of the folder of the objects' content in a data
// folder.
const BlobFolder = "files"
