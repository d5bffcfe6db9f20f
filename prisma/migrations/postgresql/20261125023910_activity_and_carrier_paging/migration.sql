-- CreateIndex
CREATE INDEX "StoreFulfillmentEvent_shopId_state_updatedAt_id_idx" ON "StoreFulfillmentEvent"("shopId", "state", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Tracker_shopId_syncState_lastErrorAt_id_idx" ON "Tracker"("shopId", "syncState", "lastErrorAt", "id");

-- CreateIndex
CREATE INDEX "TrackingLine_shopId_carrierKey_fulfillmentId_idx" ON "TrackingLine"("shopId", "carrierKey", "fulfillmentId");

-- CreateIndex
CREATE INDEX "WebhookDelivery_shopDomain_state_receivedAt_id_idx" ON "WebhookDelivery"("shopDomain", "state", "receivedAt", "id");
