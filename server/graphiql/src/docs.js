// The REST API reference: Swagger UI over the OpenAPI document this server serves. The validator
// badge is off, so the page asks nothing of another host.
const el = document.getElementById('swagger-ui');
window.SwaggerUIBundle({
  url: el.dataset.spec,
  domNode: el,
  deepLinking: true,
  validatorUrl: null,
  tryItOutEnabled: false,
  presets: [window.SwaggerUIBundle.presets.apis],
});
