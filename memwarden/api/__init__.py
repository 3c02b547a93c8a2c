"""The HTTP API (FastAPI) and the review console. ``memwarden.api.app.create_app(engine)``
builds the app. (Nothing is imported here: the routers import this package's modules, and a
package that imported its own routers would import itself.)"""
