// This file serves the stored files:
//
//	GET /files                          every realm's storage: objects, bytes, quota
//	GET /files/{realm}                  the namespaces and objects of a realm (images
//	                                    as thumbnails)
//	GET /files/{realm}/object?ns=&key=  an object's content, as a download

package console

import (
	"net/http"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/fleetfiles"
)

type usageView struct {
	Realm, App, Stage string
	Usage             fleetfiles.Usage
	Percent           int64
	Err               string
}

type objectView struct {
	Namespace, Key string
	Size           int64
	ContentType    string
	ETag           string
	LastModified   time.Time
	Link           string
	Image          bool // a raster image, shown as a thumbnail
}

// thumbnailTypes are the content types the bucket page shows as images.
var thumbnailTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

type bucketView struct {
	usageView
	Objects []objectView
}

// usage returns a realm's storage usage.
func (c *Console) usage(rt realmTables) (usageView, *fleetfiles.Bucket) {
	v := usageView{Realm: rt.Realm, App: rt.App, Stage: rt.Stage}
	b, err := c.cfg.Files.Bucket(rt.Realm)
	if err != nil {
		v.Err = err.Error()
		return v, nil
	}
	v.Usage = b.Usage()
	v.Percent = percent(v.Usage.UsedBytes, v.Usage.QuotaBytes)
	return v, b
}

func (c *Console) files(w http.ResponseWriter, r *http.Request) {
	var out []usageView
	for _, rt := range c.realmsOf() {
		v, _ := c.usage(rt)
		out = append(out, v)
	}
	c.render(w, "files", "Files", "/files", out)
}

// realmNamed returns a provisioned realm with its app and stage.
func (c *Console) realmNamed(name string) (realmTables, bool) {
	for _, rt := range c.realmsOf() {
		if rt.Realm == name {
			return rt, true
		}
	}
	return realmTables{}, false
}

func (c *Console) bucket(w http.ResponseWriter, r *http.Request) {
	rt, ok := c.realmNamed(r.PathValue("realm"))
	if !ok {
		c.fail(w, r, http.StatusNotFound, "There is no realm "+r.PathValue("realm")+".")
		return
	}
	u, b := c.usage(rt)
	v := bucketView{usageView: u}
	if b != nil {
		for _, o := range b.Objects() {
			v.Objects = append(v.Objects, objectView{Namespace: o.Namespace, Key: o.Key, Size: o.Size,
				ContentType: o.ContentType, ETag: o.ETag, LastModified: o.LastModified,
				Link: "/files/" + rt.Realm + "/object?" + urlValues("ns", o.Namespace, "key", o.Key), Image: thumbnailTypes[o.ContentType]})
		}
	}
	c.render(w, "bucket", "Files of "+rt.Realm, "/files", v)
}

func (c *Console) download(w http.ResponseWriter, r *http.Request) {
	realm, ns, key := r.PathValue("realm"), r.URL.Query().Get("ns"), r.URL.Query().Get("key")
	b, err := c.cfg.Files.Bucket(realm)
	if err != nil {
		c.fail(w, r, http.StatusNotFound, err.Error())
		return
	}
	data, ok, err := b.Content(ns, key)
	if err != nil || !ok {
		c.fail(w, r, http.StatusNotFound, "There is no object "+ns+"/"+key+" in "+realm+".")
		return
	}
	ct := "application/octet-stream"
	for _, o := range b.Objects() {
		if o.Namespace == ns && o.Key == key && o.ContentType != "" {
			ct = o.ContentType
		}
	}
	fleetfiles.ObjectHeaders(w.Header(), ct, key, true)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	_, _ = w.Write(data)
}
